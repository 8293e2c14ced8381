-- Neovim (>= 0.7, Debian's) end-to-end test of ordering-lsp with the configuration of
-- editors/README.md (its marked lua block is run as is): every file of expect.json is opened in
-- turn; checks diagnostics, hover, definition, completion and rename.
-- Usage: ORDERING_LSP=/path/ordering-lsp WS=editors/test/workspace \
--        nvim --headless --clean -c "luafile editors/test/nvim-e2e.lua"
-- Prints "ok - ..." / "not ok - ..." per check, then "RESULT {json}"; exit code = failures.
local function out(s) io.stdout:write(s .. '\n'); io.stdout:flush() end
local t0 = vim.loop.hrtime()
local function ms() return math.floor((vim.loop.hrtime() - t0) / 1e6) end
local env = function(k, d) local v = os.getenv(k); if v == nil or v == '' then return d end; return v end

local server = env('ORDERING_LSP', 'ordering-lsp')
local ws = vim.fn.fnamemodify(env('WS', 'editors/test/workspace'), ':p'):gsub('/$', '')
local timeout = tonumber(env('LSP_TIMEOUT_MS', '15000'))
local expect = vim.fn.json_decode(table.concat(vim.fn.readfile(ws .. '/expect.json'), '\n'))
local res = { server = server, checks = {}, timings = {} }
local failed = 0

local function check(name, ok, detail)
  res.checks[name] = ok and 'ok' or ('FAIL: ' .. tostring(detail))
  if ok then out('ok - ' .. name .. (detail and (' (' .. detail .. ')') or ''))
  else failed = failed + 1; out('not ok - ' .. name .. ': ' .. tostring(detail)) end
end

local function finish()
  res.total_ms = ms()
  out('RESULT ' .. vim.fn.json_encode(res))
  vim.cmd('cquit ' .. failed)
end

-- latest diagnostics per URI, as the server published them
local published = {}
local default_diag = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
  if result then published[result.uri] = result.diagnostics end
  return default_diag(err, result, ctx, config)
end

-- the configuration users copy: the lua block of editors/README.md marked "tested by editors/test/nvim-e2e.lua"
local readme = vim.fn.readfile(vim.fn.fnamemodify(ws, ':h:h') .. '/README.md')
local block, inside = {}, false
for _, line in ipairs(readme) do
  if not inside and line:find('tested by editors/test/nvim-e2e.lua', 1, true) then inside = true end
  if inside then
    if line:match('^```') then break end
    table.insert(block, line)
  end
end
if #block == 0 then check('nvim README snippet', false, 'no block marked for nvim-e2e.lua in editors/README.md'); return finish() end
local chunk, perr = loadstring(table.concat(block, '\n'), 'editors/README.md')
if not chunk then check('nvim README snippet', false, perr); return finish() end
vim.env.ORDERING_LSP = server
vim.cmd('cd ' .. vim.fn.fnameescape(ws))
chunk()

local client
local function get_client()
  for _, c in pairs(vim.lsp.get_active_clients()) do
    if c.name == 'ordering-lsp' then return c end
  end
end

local function lc(pos) -- "line:col" 1-based -> 0-based numbers
  local l, c = pos:match('^(%d+):(%d+)$')
  return tonumber(l) - 1, tonumber(c) - 1
end

for _, f in ipairs(expect.files) do
  if f.editors == nil or vim.tbl_contains(f.editors, 'nvim') then
  local file = ws .. '/' .. f.path
  local uri = vim.uri_from_fname(file)
  local sys = f.languageId
  vim.cmd('edit ' .. vim.fn.fnameescape(file)) -- filetype detection + the README's autocmds attach it
  local bufnr = vim.api.nvim_get_current_buf()
  res['filetype_' .. sys] = vim.bo[bufnr].filetype
  if not client then
    vim.wait(timeout, function() client = get_client(); return client ~= nil and client.initialized end, 20)
    if not client then check('nvim start', false, 'the README config started no ordering-lsp client'); return finish() end
    res.timings.initialize = ms()
  end

  -- diagnostics: wait for a publish for this file that has the expected message
  local t = ms()
  local function has_diag()
    for _, d in ipairs(published[uri] or {}) do
      if d.message:find(f.diagnostic, 1, true) then return d end
    end
  end
  vim.wait(timeout, function() return has_diag() ~= nil end, 20)
  local d = has_diag()
  local got = {}
  for _, x in ipairs(published[uri] or {}) do table.insert(got, (x.range.start.line + 1) .. ':' .. x.message:gsub('\n', ' | ')) end
  check('nvim ' .. sys .. ' diagnostics', d ~= nil,
    d and ((d.range.start.line + 1) .. ': ' .. d.message:gsub('\n', ' | '):sub(1, 100)) or vim.fn.json_encode(got))
  res.timings[sys .. '_diagnostics'] = ms() - t

  local function request(method, pos)
    local l, c = lc(pos)
    local params = { textDocument = { uri = uri }, position = { line = l, character = c } }
    local r, err = client.request_sync(method, params, timeout, bufnr)
    if not r then return nil, tostring(err) end
    if r.err then return nil, vim.inspect(r.err) end
    return r.result
  end

  if f.hover then
    local r, err = request('textDocument/hover', f.hover.at)
    local text = ''
    if r and r ~= vim.NIL and r.contents then
      text = table.concat(vim.lsp.util.convert_input_to_markdown_lines(r.contents), '\n')
    end
    -- Lua patterns are not regexes: use Vim's regex engine (\c = ignore case, \v = very magic)
    local ok = text ~= '' and vim.fn.match(text, '\\v\\c' .. f.hover.match) >= 0
    check('nvim ' .. sys .. ' hover', ok, ok and text:gsub('\n', ' '):sub(1, 80) or (err or ('hover: ' .. vim.inspect(text))))
  end

  if f.definition then
    local r, err = request('textDocument/definition', f.definition.at)
    local lines = {}
    if r and r ~= vim.NIL then
      if r.uri or r.targetUri then r = { r } end
      for _, loc in ipairs(r) do
        local rg = loc.range or loc.targetSelectionRange
        table.insert(lines, vim.fn.fnamemodify(vim.uri_to_fname(loc.uri or loc.targetUri), ':t') .. ':' .. (rg.start.line + 1))
      end
    end
    local want = vim.fn.fnamemodify(file, ':t') .. ':' .. f.definition.line
    check('nvim ' .. sys .. ' definition', vim.tbl_contains(lines, want),
      'want ' .. want .. ', got ' .. (err or vim.fn.json_encode(lines)))
  end

  if f.completion then
    local r, err = request('textDocument/completion', f.completion.at)
    local labels = {}
    local items = (r and r ~= vim.NIL) and (r.items or r) or {}
    for _, it in ipairs(items) do table.insert(labels, it.label) end
    local missing = {}
    for _, want in ipairs(f.completion.labels) do
      if not vim.tbl_contains(labels, want) then table.insert(missing, want) end
    end
    check('nvim ' .. sys .. ' completion', #missing == 0 and err == nil,
      (err or ('offered ' .. vim.fn.json_encode(labels) .. (#missing > 0 and (', missing ' .. vim.fn.json_encode(missing)) or ''))))
  end

  if f.rename then
    -- as :lua vim.lsp.buf.rename() does: prepareRename, rename, apply the edit to the buffers
    local l, c = lc(f.rename.at)
    local pos = { textDocument = { uri = uri }, position = { line = l, character = c } }
    local pr = client.request_sync('textDocument/prepareRename', pos, timeout, bufnr)
    local r = client.request_sync('textDocument/rename', vim.tbl_extend('force', pos, { newName = f.rename.newName }), timeout, bufnr)
    local detail, ok = nil, false
    if not pr or pr.err or pr.result == nil or pr.result == vim.NIL then
      detail = 'prepareRename: ' .. vim.inspect(pr and (pr.err or pr.result))
    elseif not r or r.err or r.result == nil or r.result == vim.NIL then
      detail = 'rename: ' .. vim.inspect(r and r.err)
    else
      vim.lsp.util.apply_workspace_edit(r.result, client.offset_encoding)
      local bad = {}
      local said = {}
      for _, want in ipairs(f.rename.lines) do
        local ln, sub = want[1], want[2]
        local text = vim.api.nvim_buf_get_lines(bufnr, ln - 1, ln, false)[1] or ''
        if not text:find(sub, 1, true) then table.insert(bad, ln .. ': ' .. text) else table.insert(said, ln .. ': ' .. sub) end
      end
      ok = #bad == 0
      detail = ok and table.concat(said, '; ') or ('not renamed: ' .. vim.fn.json_encode(bad))
      vim.cmd('silent! edit!') -- back to the file on disk
    end
    check('nvim ' .. sys .. ' rename', ok, detail)
  end
  end
end

if client then
  client.stop()
  vim.wait(2000, function() return client.is_stopped() end, 20)
end
finish()
