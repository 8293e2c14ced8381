// Restart the server after a crash, but not forever: at most `max` restarts in `windowMs`.
export class RestartPolicy {
  private crashes: number[] = [];
  constructor(readonly max = 4, readonly windowMs = 3 * 60 * 1000) {}

  /** Records a crash at `now` (ms) and says whether to restart. */
  crashed(now: number): 'restart' | 'give-up' {
    this.crashes = this.crashes.filter((t) => now - t < this.windowMs);
    this.crashes.push(now);
    return this.crashes.length <= this.max ? 'restart' : 'give-up';
  }

  /** A manual restart starts a fresh budget. */
  reset(): void { this.crashes = []; }

  get recent(): number { return this.crashes.length; }
}
