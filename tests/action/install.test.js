'use strict';
/*
 * The action installs footprint (ci/github/install.js, called by main.js)
 * when the job does not have it: the deb input by path or URL (its
 * sha256 checked first), else a footprint on PATH, else a build with the
 * repository's scripts.
 *
 * main.js runs as the runner runs it, from a copy of ci/github inside a
 * stand-in repository whose scripts/install-deps and scripts/package
 * only record their calls (package "builds" a .deb). sudo, apt-get and
 * footprint are STAND-INS first on PATH: apt-get "installs" a .deb by
 * copying it (here a script, the stand-in footprint) into a directory on
 * PATH, so that the footprint main starts next is the one installed. A
 * URL is served by a small HTTP server in a child process. What is tested
 * is what the action does: which file it installs and with what argv,
 * that a hash mismatch installs nothing, and the footprint it starts.
 * The real apt-get install of the real .deb on a clean Debian 12 is
 * tests/integration/test_package.py.
 *
 * Run: node --test tests/action/*.test.js (Node 18 or later, no npm).
 */
const { test, after } = require('node:test');
const assert = require('node:assert');
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ACTION = path.resolve(__dirname, '../../ci/github');
const NODE = process.execPath;
const dirs = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/* each stand-in appends {who, argv, cwd, env} to CALLS */
const recorder = (calls) => `const fs = require('fs');
module.exports = (who, argv, extra = {}) => fs.appendFileSync(${JSON.stringify(calls)},
  JSON.stringify({ who, argv, env: process.env, ...extra }) + '\\n');
`;

/* what the .deb "contains": a footprint that starts a sidecar */
const FOOTPRINT = (rec, label) => `#!${NODE}
require(${JSON.stringify(rec)})('footprint', process.argv.slice(2), { label: ${JSON.stringify(label)} });
const a = process.argv.slice(2);
if (a[0] === 'sidecar' && a[1] === 'start') require('fs').mkdirSync(a[a.indexOf('--state') + 1], { recursive: true });
`;

/* sudo -n CMD...: runs CMD with the job's PATH (the stand-ins) */
const SUDO = (rec) => `#!${NODE}
require(${JSON.stringify(rec)})('sudo', process.argv.slice(2));
const a = process.argv.slice(2);
if (a[0] !== '-n') { console.error('sudo: a password is required'); process.exit(1); }
let i = 1;
if (a[i] && a[i].startsWith('--preserve-env=')) i++;
const r = require('child_process').spawnSync(a[i], a.slice(i + 1), { stdio: 'inherit' });
process.exit(r.status === null ? 99 : r.status);
`;

/* apt-get install -y ... FILE: FILE's content becomes INSTALLED/footprint */
const APT = (rec, installed, state) => `#!${NODE}
const fs = require('fs');
require(${JSON.stringify(rec)})('apt-get', process.argv.slice(2));
const a = process.argv.slice(2);
if (a[0] === 'update') process.exit(0);
const st = JSON.parse(fs.readFileSync(${JSON.stringify(state)}, 'utf8'));
if (st.aptFailures > 0) {
  st.aptFailures--;
  fs.writeFileSync(${JSON.stringify(state)}, JSON.stringify(st));
  console.error('E: Failed to fetch libbpf1 404 Not Found');
  process.exit(100);
}
const file = a[a.length - 1];
if (a[0] !== 'install' || !file.endsWith('.deb') || !file.startsWith('/')) process.exit(100);
fs.mkdirSync(${JSON.stringify(installed)}, { recursive: true });
fs.copyFileSync(file, ${JSON.stringify(installed)} + '/footprint');
fs.chmodSync(${JSON.stringify(installed)} + '/footprint', 0o755);
`;

function runner(opts = {}) {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-install-'));
  dirs.push(top);
  const r = {
    top,
    repo: path.join(top, 'repo'),
    bin: path.join(top, 'bin'),
    installed: path.join(top, 'installed'),
    temp: path.join(top, 'runner_temp'),
    work: path.join(top, 'work'),
    calls: path.join(top, 'calls.ndjson'),
    rec: path.join(top, 'recorder.js'),
    state: path.join(top, 'apt-state.json'),
    files: {},
  };
  for (const d of [r.bin, r.temp, r.work, path.join(r.repo, 'ci', 'github'), path.join(r.repo, 'scripts')])
    fs.mkdirSync(d, { recursive: true });
  for (const f of fs.readdirSync(ACTION))
    fs.copyFileSync(path.join(ACTION, f), path.join(r.repo, 'ci', 'github', f));
  fs.writeFileSync(path.join(r.repo, 'CMakeLists.txt'), 'project(footprint VERSION 0.1.0 LANGUAGES C)\n');
  fs.writeFileSync(r.rec, recorder(r.calls));
  fs.writeFileSync(r.state, JSON.stringify({ aptFailures: opts.aptFailures || 0 }));
  fs.writeFileSync(path.join(r.bin, 'sudo'), SUDO(r.rec), { mode: 0o755 });
  fs.writeFileSync(path.join(r.bin, 'apt-get'), APT(r.rec, r.installed, r.state), { mode: 0o755 });
  if (opts.onPath)
    fs.writeFileSync(path.join(r.bin, 'footprint'), FOOTPRINT(r.rec, 'on PATH'), { mode: 0o755 });
  r.deb = path.join(top, 'footprint_0.1.0+gabc_amd64.deb');
  fs.writeFileSync(r.deb, FOOTPRINT(r.rec, 'from the deb'));
  r.debSha = crypto.createHash('sha256').update(fs.readFileSync(r.deb)).digest('hex');
  /* the repository's scripts: install-deps records, package "builds" */
  fs.writeFileSync(path.join(r.repo, 'scripts', 'install-deps'), `#!${NODE}
require(${JSON.stringify(r.rec)})('install-deps', process.argv.slice(2));
`, { mode: 0o755 });
  fs.writeFileSync(path.join(r.repo, 'scripts', 'package'), `#!${NODE}
const fs = require('fs');
const v = ${JSON.stringify(path.join(r.repo, 'VERSION'))};
require(${JSON.stringify(r.rec)})('package', process.argv.slice(2),
  { version: fs.existsSync(v) ? fs.readFileSync(v, 'utf8') : null });
if (${JSON.stringify(opts.packageFails || false)}) process.exit(1);
const out = process.argv[process.argv.indexOf('--out') + 1];
fs.mkdirSync(out, { recursive: true });
fs.copyFileSync(${JSON.stringify(r.deb)}, out + '/footprint_0.1.0+gbuilt_amd64.deb');
console.log(out + '/footprint_0.1.0+gbuilt_amd64.deb');
`, { mode: 0o755 });
  for (const f of ['GITHUB_STATE', 'GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY']) {
    r.files[f] = path.join(top, f.toLowerCase());
    fs.writeFileSync(r.files[f], '');
  }
  return r;
}

/* action.yml's inputs and defaults, as the runner reads them */
function defaults(workspace) {
  const yml = fs.readFileSync(path.join(ACTION, 'action.yml'), 'utf8');
  const inputs = yml.split(/^outputs:/m)[0].split(/^inputs:/m)[1];
  const out = {};
  let name = null;
  for (const line of inputs.split('\n')) {
    let m = line.match(/^  ([a-z0-9-]+):\s*$/);
    if (m) name = m[1];
    m = line.match(/^    default: (.*)$/);
    if (m && name)
      out[name] = m[1].replace(/^'(.*)'$/, '$1').replace('${{ github.workspace }}', workspace);
  }
  return out;
}

function main(r, inputs = {}, env = {}) {
  const e = {
    PATH: `${r.bin}:${r.installed}:${process.env.PATH}`,
    HOME: r.top,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: r.work,
    RUNNER_TEMP: r.temp,
    ...Object.fromEntries(Object.entries(r.files)),
    ...env,
  };
  for (const [k, v] of Object.entries({ ...defaults(r.work), ...inputs }))
    e[`INPUT_${k.toUpperCase()}`] = v;
  const res = spawnSync(NODE, [path.join(r.repo, 'ci', 'github', 'main.js')],
                        { cwd: r.work, env: e, encoding: 'utf8' });
  assert.strictEqual(res.error, undefined);
  return res;
}

const re = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function calls(r, who) {
  if (!fs.existsSync(r.calls)) return [];
  return fs.readFileSync(r.calls, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    .filter((c) => c.who === who);
}

function aptInstalls(r) {
  return calls(r, 'apt-get').filter((c) => c.argv[0] === 'install');
}

function startedWith(r) {
  const fp = calls(r, 'footprint').filter((c) => c.argv[0] === 'sidecar' && c.argv[1] === 'start');
  return fp.map((c) => c.label);
}

/* a child HTTP server: GET /footprint.deb gives body; prints its port */
async function server(body) {
  const code = `
const http = require('http');
let n = 0;
const s = http.createServer((req, res) => {
  n++;
  if (req.url === '/count') { res.end(String(n - 1)); return; }
  if (req.url === '/moved') { res.writeHead(302, { location: '/footprint.deb' }); res.end(); return; }
  if (req.url !== '/footprint.deb') { res.writeHead(404); res.end('no'); return; }
  res.end(Buffer.from(process.argv[1], 'base64'));
});
s.listen(0, '127.0.0.1', () => console.log(s.address().port));
`;
  const child = spawn(NODE, ['-e', code, Buffer.from(body).toString('base64')],
                      { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', reject);
  });
  const base = `http://127.0.0.1:${port}`;
  const count = async () => Number(await (await fetch(`${base}/count`)).text());
  return { base, count, stop: () => child.kill() };
}

test('a footprint already on PATH is used: nothing is installed or built', () => {
  const r = runner({ onPath: true });
  const res = main(r);
  assert.strictEqual(res.status, 0, res.stdout + res.stderr);
  assert.deepStrictEqual(aptInstalls(r), []);
  assert.deepStrictEqual(calls(r, 'package'), []);
  assert.deepStrictEqual(startedWith(r), ['on PATH']);
});

test('the deb input by path is installed with apt-get, and its footprint started', () => {
  const r = runner();
  const res = main(r, { deb: path.relative(r.work, r.deb) });
  assert.strictEqual(res.status, 0, res.stdout + res.stderr);
  const sudo = calls(r, 'sudo').filter((c) => c.argv.includes('apt-get'));
  assert.deepStrictEqual(sudo.map((c) => c.argv), [['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get',
    'install', '-y', '-q', '--no-install-recommends', '--allow-downgrades', r.deb]],
  'an absolute path (apt-get takes a .deb by its path), relative ones from the workspace');
  assert.match(res.stdout, new RegExp(`footprint: installing ${re(r.deb)} \\(sha256 ${r.debSha}\\)`));
  assert.deepStrictEqual(startedWith(r), ['from the deb']);
});

test('a deb input is installed even where a footprint is on PATH: the pinned one is wanted', () => {
  const r = runner({ onPath: true });
  const res = main(r, { deb: r.deb });
  assert.strictEqual(res.status, 0, res.stdout + res.stderr);
  assert.strictEqual(aptInstalls(r).length, 1);
});

test('the installed footprint is the one started and saved for post', () => {
  const r = runner();
  const res = main(r, { deb: r.deb, 'deb-sha256': r.debSha.toUpperCase() });
  assert.strictEqual(res.status, 0, res.stdout + res.stderr);
  assert.deepStrictEqual(startedWith(r), ['from the deb']);
  assert.match(fs.readFileSync(r.files.GITHUB_STATE, 'utf8'),
               new RegExp(`^footprint=${re(path.join(r.installed, 'footprint'))}$`, 'm'));
});

test('a deb path whose sha256 is not the pinned one installs and starts nothing', () => {
  const r = runner();
  const wrong = '0'.repeat(64);
  const res = main(r, { deb: r.deb, 'deb-sha256': wrong });
  assert.strictEqual(res.status, 1);
  assert.match(res.stdout, new RegExp(`^::error title=footprint::the deb input ${re(r.deb)} has sha256 ${r.debSha}, not the ${wrong} deb-sha256 pins; nothing was installed$`, 'm'));
  assert.deepStrictEqual(aptInstalls(r), []);
  assert.deepStrictEqual(calls(r, 'footprint'), []);
  assert.ok(fs.existsSync(r.deb), 'the user\'s own file is left alone');
});

test('a deb URL is downloaded, checked against deb-sha256, then installed', async () => {
  const r = runner();
  const srv = await server(fs.readFileSync(r.deb));
  try {
    for (const url of [`${srv.base}/footprint.deb`, `${srv.base}/moved`]) {
      const res = main(r, { deb: url, 'deb-sha256': r.debSha });
      assert.strictEqual(res.status, 0, res.stdout + res.stderr);
      const file = aptInstalls(r).pop().argv.pop();
      assert.ok(file.startsWith(r.temp + '/'), `downloaded into RUNNER_TEMP: ${file}`);
      assert.strictEqual(crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'), r.debSha);
      assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600);
    }
    assert.deepStrictEqual(startedWith(r), ['from the deb', 'from the deb']);
  } finally {
    srv.stop();
  }
});

test('a deb URL without deb-sha256 is refused before anything is fetched', async () => {
  const r = runner();
  const srv = await server(fs.readFileSync(r.deb));
  try {
    const res = main(r, { deb: `${srv.base}/footprint.deb` });
    assert.strictEqual(res.status, 1);
    assert.match(res.stdout, /^::error title=footprint::a deb URL needs the deb-sha256 input/m);
    assert.strictEqual(await srv.count(), 0);
    assert.deepStrictEqual(aptInstalls(r), []);
  } finally {
    srv.stop();
  }
});

test('a deb URL whose content is not the pinned one: nothing installed, nothing kept', async () => {
  const r = runner();
  const srv = await server('#!/bin/sh\necho a tampered package\n');
  try {
    const res = main(r, { deb: `${srv.base}/footprint.deb`, 'deb-sha256': r.debSha });
    assert.strictEqual(res.status, 1);
    assert.match(res.stdout, /has sha256 [0-9a-f]{64}, not the [0-9a-f]{64} deb-sha256 pins; nothing was installed/);
    assert.deepStrictEqual(aptInstalls(r), []);
    assert.deepStrictEqual(calls(r, 'footprint'), []);
    assert.deepStrictEqual(fs.readdirSync(r.temp), [], 'the download is removed');
  } finally {
    srv.stop();
  }
});

test('a deb URL that cannot be fetched fails the step', async () => {
  const r = runner({ onPath: true });
  const srv = await server('x');
  try {
    let res = main(r, { deb: `${srv.base}/nothing.deb`, 'deb-sha256': r.debSha });
    assert.strictEqual(res.status, 1);
    assert.match(res.stdout, /^::error title=footprint::cannot download the deb input http:\/\/127\.0\.0\.1:\d+\/nothing\.deb: HTTP 404/m);
    res = main(r, { deb: 'ftp://example.org/footprint.deb', 'deb-sha256': r.debSha });
    assert.strictEqual(res.status, 1);
    assert.match(res.stdout, /the deb input wants a path or an http\(s\) URL, got 'ftp:/);
    res = main(r, { deb: path.join(r.top, 'missing.deb') });
    assert.strictEqual(res.status, 1);
    assert.match(res.stdout, /missing\.deb is not a file/);
    assert.deepStrictEqual(aptInstalls(r), []);
    assert.deepStrictEqual(calls(r, 'footprint'), [], 'the one on PATH is not used instead');
  } finally {
    srv.stop();
  }
});

test('stale package lists: apt-get update, then the install once more', () => {
  let r = runner({ aptFailures: 1 });
  let res = main(r, { deb: r.deb });
  assert.strictEqual(res.status, 0, res.stdout + res.stderr);
  assert.deepStrictEqual(calls(r, 'apt-get').map((c) => c.argv[0]), ['install', 'update', 'install']);

  r = runner({ aptFailures: 2 });
  res = main(r, { deb: r.deb });
  assert.strictEqual(res.status, 1);
  assert.match(res.stdout, /^::error title=footprint::apt-get could not install .* \(exit 100\)/m);
  assert.deepStrictEqual(calls(r, 'footprint'), []);
});

test('no footprint and no deb: built with the repository\'s scripts, then installed', () => {
  const r = runner();
  const sha = 'ab'.repeat(20);
  const res = main(r, {}, { GITHUB_ACTION_REF: sha });
  assert.strictEqual(res.status, 0, res.stdout + res.stderr);
  const [deps] = calls(r, 'sudo').filter((c) => c.argv[1].endsWith('install-deps'));
  assert.deepStrictEqual(deps.argv, ['-n', path.join(r.repo, 'scripts', 'install-deps'), 'build']);
  const [pkg] = calls(r, 'package');
  assert.deepStrictEqual(pkg.argv, ['--out', path.join(r.temp, 'footprint-deb')]);
  assert.strictEqual(pkg.env.FOOTPRINT_BUILD_DIR, path.join(r.temp, 'footprint-build'));
  assert.strictEqual(pkg.version, `0.1.0+g${sha.slice(0, 12)} ${sha}\n`,
                     'the commit the action was pinned to, as a release tarball says it');
  assert.deepStrictEqual(aptInstalls(r).map((c) => c.argv.pop()),
                         [path.join(r.temp, 'footprint-deb', 'footprint_0.1.0+gbuilt_amd64.deb')]);
  assert.deepStrictEqual(startedWith(r), ['from the deb']);
});

test('a build that fails, or build: false, fails the step and starts nothing', () => {
  let r = runner({ packageFails: true });
  let res = main(r);
  assert.strictEqual(res.status, 1);
  assert.match(res.stdout, /^::error title=footprint::scripts\/package failed \(exit 1\); give the deb input instead$/m);
  assert.deepStrictEqual(aptInstalls(r), []);

  r = runner();
  res = main(r, { build: 'false' });
  assert.strictEqual(res.status, 1);
  assert.match(res.stdout, /^::error title=footprint::'footprint' is not on PATH and the build input is false/m);
  assert.deepStrictEqual(calls(r, 'sudo'), []);
  assert.deepStrictEqual(calls(r, 'package'), []);
});

test('malformed inputs fail before anything runs', () => {
  const r = runner({ onPath: true });
  for (const [inputs, want] of [
    [{ deb: r.deb, 'deb-sha256': 'abc' }, /the deb-sha256 input wants 64 hex digits, got 'abc'/],
    [{ 'deb-sha256': r.debSha }, /deb-sha256 is given without the deb input it pins/],
    [{ build: 'yes' }, /the build input wants true or false, got 'yes'/],
  ]) {
    const res = main(r, inputs);
    assert.strictEqual(res.status, 1);
    assert.match(res.stdout, want);
  }
  assert.deepStrictEqual(calls(r, 'sudo'), []);
});
