// "Ordering: Install Puppetfile Modules": the server's ordering.installModules command (it installs
// what the workspace declares but does not hold, then analyses it again). vscode-languageclient
// registers the command from the server's executeCommandProvider; the extension's middleware
// decides whether it may run and words its failure. No 'vscode' import: the unit tests use this.

export const INSTALL_MODULES_COMMAND = 'ordering.installModules';

/**
 * Why the install must not run, or undefined. r10k evaluates a Puppetfile as Ruby code: installing
 * the modules of an untrusted workspace would run that workspace's code.
 */
export function installRefusal(trusted: boolean): string | undefined {
  if (trusted) return undefined;
  return 'Ordering: installing the Puppetfile\'s modules runs r10k on it, which evaluates the Puppetfile as Ruby. '
    + 'Trust this workspace first (Workspaces: Manage Workspace Trust).';
}

/** A failed install: the first line for the notification, the whole server error for the output. */
export function installFailure(err: unknown): { summary: string; detail: string } {
  const detail = (err instanceof Error ? err.message : typeof err === 'object' && err && 'message' in err
    ? String((err as { message: unknown }).message) : String(err)).trim();
  const first = detail.split('\n')[0] || 'the installation failed';
  return { summary: first.length > 300 ? `${first.slice(0, 300)}…` : first, detail };
}
