'use strict';
/*
 * The GitHub action's glue (ci/github/main.js, post.js), run as the runner
 * runs it: node on each script, with a simulated GITHUB_* environment
 * (GITHUB_STATE, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP in a temp
 * dir, the inputs as INPUT_* with action.yml's defaults) and the state
 * saved by main handed to post as STATE_* variables.
 *
 * `footprint` and `sudo` are STAND-INS: footprint first on PATH, sudo
 * bind-mounted over /usr/bin/sudo in a mount namespace of the step's own
 * (the action runs sudo by that path, never by PATH). The stand-in
 * footprint only plays the sidecar's part of the CLI contract (docs/ci.md:
 * start creates its state dir and names its daemon; stop writes a receipt,
 * a summary and annotation lines and exits 0 or 1); it is not the sidecar,
 * which is tested for real, BPF, sudo and all, by tests/integration
 * (test_sidecar_action.py). What is tested here is what the action does
 * around it: the argv it builds, the environment it passes, the state it
 * saves and reads back, the summary and output it writes, and the exit
 * code it gives the job, failing closed.
 *
 * Run: node --test tests/action/*.test.js (Node 18 or later, no npm; as
 * root, or where unprivileged user namespaces are allowed, for unshare).
 */
const { test, after } = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ACTION = path.resolve(__dirname, '../../ci/github');
const NODE = process.execPath;
const dirs = [];
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/* action.yml's inputs and their defaults, as the runner reads them */
function defaults(workspace) {
  const yml = fs.readFileSync(path.join(ACTION, 'action.yml'), 'utf8');
  const inputs = yml.split(/^outputs:/m)[0].split(/^inputs:/m)[1];
  const out = {};
  let name = null;
  for (const line of inputs.split('\n')) {
    let m = line.match(/^  ([a-z-]+):\s*$/);
    if (m) name = m[1];
    m = line.match(/^    default: (.*)$/);
    if (m && name)
      out[name] = m[1].replace(/^'(.*)'$/, '$1').replace('${{ github.workspace }}', workspace);
  }
  return out;
}

/* appends {who, argv, env} to the calls file: run by sudo, required by footprint */
const RECORDER = `
const record = (who, argv) => require('fs').appendFileSync(CALLS,
  JSON.stringify({ who, argv, env: process.env }) + '\\n');
if (require.main === module) record(process.argv[2], process.argv.slice(3));
module.exports = record;
`;

/* sudo -n with env_reset: only --preserve-env names and SUDO_* get through */
const SUDO = `#!/bin/sh
"NODE" "RECORDER" sudo "$@" || exit 99
[ "$1" = -n ] || { echo "sudo: a password is required" >&2; exit 1; }
shift
case $1 in --preserve-env=*) keep=\${1#--preserve-env=}; shift ;; *) keep= ;; esac
for name in $(echo "$keep" | tr , ' '); do
	case $name in *[!A-Za-z0-9_]*) exit 98 ;; esac
	eval "[ -n \\"\\\${$name+x}\\" ] && set -- \\"$name=\\$$name\\" \\"\\$@\\""
done
exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin SUDO_UID=1001 SUDO_GID=1001 \\
	SUDO_USER=runner "$@"
`;

const FOOTPRINT = `#!NODE
const fs = require('fs');
require('RECORDER')('footprint', process.argv.slice(2));
const sc = JSON.parse(fs.readFileSync('SCENARIO', 'utf8'));
const a = process.argv.slice(2);
const opt = (n) => (a.indexOf(n) < 0 ? null : a[a.indexOf(n) + 1]);
const die = (code, msg) => { console.error('footprint: sidecar: ' + msg); process.exit(code); };
if (a[0] !== 'sidecar') die(2, 'not a sidecar command');
const state = opt('--state');
if (a[1] === 'start') {
  if (sc.start !== 'ok' && sc.start !== 'mute') die(125, 'cannot load the BPF programs');
  fs.mkdirSync(state);
  fs.writeFileSync(path(state), 'running');
  if (a.includes('--json') && sc.start === 'ok')
    console.log(JSON.stringify({ daemon: '4242:987654', state }));
  process.exit(0);
}
function path(s) { return s + '/daemon'; }
if (a[1] !== 'stop') die(2, 'unknown');
if (!fs.existsSync(path(state))) die(2, 'no sidecar at ' + state + '; start one first');
if (sc.stop === 'crash') process.kill(process.pid, 'SIGKILL');
const ok = sc.stop === 'ok' || sc.stop === 'noreceipt';
/* 'lie': exit 0 over a failing receipt; 'noreceipt': exit 0, none */
if (sc.stop !== 'noreceipt')
  fs.writeFileSync(opt('--receipt'), JSON.stringify({ ok: ok && sc.stop !== 'lie', reasons: [] }));
fs.writeFileSync(opt('--summary'), '## footprint: ' + (ok ? 'ok' : 'failed') + '\\n');
if (!ok && a.includes('--annotations'))
  console.log('::error title=footprint::step build: wrote /etc/hosts');
process.exit(ok || sc.stop === 'lie' ? 0 : 1);
`;

function runner(scenario = {}) {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'fp-action-'));
  dirs.push(top);
  const r = {
    top,
    bin: path.join(top, 'bin'),
    temp: path.join(top, 'runner_temp'),
    work: path.join(top, 'work'),
    calls: path.join(top, 'calls.ndjson'),
    files: {},
  };
  for (const d of [r.bin, r.temp, r.work]) fs.mkdirSync(d);
  const subst = (s) => s.replace(/NODE/g, NODE).replace(/RECORDER/g, path.join(top, 'recorder.js'))
    .replace(/SCENARIO/g, path.join(top, 'scenario.json'));
  fs.writeFileSync(path.join(top, 'recorder.js'), `const CALLS = ${JSON.stringify(r.calls)};${RECORDER}`);
  fs.writeFileSync(path.join(top, 'sudo'), subst(SUDO), { mode: 0o755 });
  fs.writeFileSync(path.join(r.bin, 'footprint'), subst(FOOTPRINT), { mode: 0o755 });
  fs.writeFileSync(path.join(top, 'scenario.json'), JSON.stringify({ start: 'ok', stop: 'ok', ...scenario }));
  for (const f of ['GITHUB_STATE', 'GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY']) {
    r.files[f] = path.join(top, f.toLowerCase());
    fs.writeFileSync(r.files[f], f === 'GITHUB_STEP_SUMMARY' ? '# an earlier step\n' : '');
  }
  return r;
}

/* name=value lines, or name<<DELIM ... DELIM, as the runner parses them */
function parseFileCommand(file) {
  const out = {};
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = lines[i].match(/^([^=<]+)<<(.+)$/);
    if (m) {
      const end = lines.indexOf(m[2], i + 1);
      out[m[1]] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (lines[i].includes('=')) {
      out[lines[i].slice(0, lines[i].indexOf('='))] = lines[i].slice(lines[i].indexOf('=') + 1);
    }
  }
  return out;
}

/* the step's own mount namespace, where /usr/bin/sudo is the stand-in */
function inNamespace(r, argv) {
  const bind = 'mount --bind "$1" /usr/bin/sudo && shift && exec "$@"';
  const ns = process.getuid() === 0 ? ['-m'] : ['-r', '-m'];
  return ['unshare', [...ns, 'sh', '-c', bind, 'sh', path.join(r.top, 'sudo'), ...argv]];
}

function step(r, script, inputs = {}, extraEnv = {}) {
  const env = {
    PATH: `${r.bin}:${process.env.PATH}`,
    HOME: r.top,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: r.work,
    RUNNER_TEMP: r.temp,
    RUNNER_TRACKING_ID: 'github_4f2c',
    ...Object.fromEntries(Object.entries(r.files)),
  };
  for (const [k, v] of Object.entries({ ...defaults(r.work), ...inputs }))
    env[`INPUT_${k.toUpperCase()}`] = v;
  if (script === 'post')
    for (const [k, v] of Object.entries(parseFileCommand(r.files.GITHUB_STATE)))
      env[`STATE_${k}`] = v;
  Object.assign(env, extraEnv);
  const [cmd, argv] = inNamespace(r, [NODE, path.join(ACTION, `${script}.js`)]);
  const res = spawnSync(cmd, argv, { cwd: r.work, env, encoding: 'utf8' });
  assert.strictEqual(res.error, undefined);
  return res;
}

function calls(r, who) {
  if (!fs.existsSync(r.calls)) return [];
  return fs.readFileSync(r.calls, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    .filter((c) => c.who === who);
}

test('main starts the sidecar with the roots, policy, record and a state dir in RUNNER_TEMP', () => {
  const r = runner();
  const res = step(r, 'main', {
    roots: 'src, /srv/one\n/srv/two\n',
    policy: 'ci.policy',
    record: '/var/tmp/job.fplog',
  });
  assert.strictEqual(res.status, 0, res.stdout + res.stderr);
  const [sudo] = calls(r, 'sudo');
  assert.deepStrictEqual(sudo.argv.slice(0, 3), ['-n', '--preserve-env=GITHUB_ACTIONS', path.join(r.bin, 'footprint')],
    'sudo gets the footprint found on the job\'s PATH, not its own secure_path');
  const state = path.join(r.temp, 'footprint-state');
  const [fp] = calls(r, 'footprint');
  assert.deepStrictEqual(fp.argv, ['sidecar', 'start', '--state', state,
    '--root', path.join(r.work, 'src'), '--root', '/srv/one', '--root', '/srv/two',
    '--policy', path.join(r.work, 'ci.policy'), '--record', '/var/tmp/job.fplog', '--json']);
  assert.strictEqual(calls(r, 'footprint').length, 1);
  assert.deepStrictEqual(parseFileCommand(r.files.GITHUB_STATE),
    { state, footprint: path.join(r.bin, 'footprint'), daemon: '4242:987654' });
});

test('the daemon does not carry RUNNER_TRACKING_ID, which the orphan killer looks for', () => {
  const r = runner();
  assert.strictEqual(step(r, 'main').status, 0);
  const [sudo] = calls(r, 'sudo');
  const [fp] = calls(r, 'footprint');
  assert.ok(!('RUNNER_TRACKING_ID' in sudo.env), 'passed to sudo');
  assert.strictEqual(sudo.env.GITHUB_WORKSPACE, r.work, 'the rest of the environment is kept');
  assert.ok(!('RUNNER_TRACKING_ID' in fp.env), 'reached footprint');
  assert.strictEqual(fp.env.GITHUB_ACTIONS, 'true', 'footprint finds Runner.Worker by it');
});

test('by default the only root is the workspace, with no policy and no record', () => {
  const r = runner();
  assert.strictEqual(step(r, 'main').status, 0);
  assert.deepStrictEqual(calls(r, 'footprint')[0].argv,
    ['sidecar', 'start', '--state', path.join(r.temp, 'footprint-state'), '--root', r.work, '--json']);
});

for (const mode of ['gate', 'audit']) {
  for (const verdict of ['ok', 'failed']) {
    test(`post, ${mode} mode, verdict ${verdict}`, () => {
      const r = runner({ stop: verdict });
      assert.strictEqual(step(r, 'main', { mode }).status, 0);
      const res = step(r, 'post', { mode });
      const fail = verdict === 'failed';
      assert.strictEqual(res.status, fail && mode === 'gate' ? 1 : 0, res.stdout + res.stderr);

      const receipt = path.join(r.temp, 'footprint-receipt.json');
      assert.deepStrictEqual(calls(r, 'footprint')[1].argv, ['sidecar', 'stop',
        '--state', path.join(r.temp, 'footprint-state'), '--receipt', receipt,
        '--summary', path.join(r.temp, 'footprint-summary.md'), '--annotations',
        '--daemon', '4242:987654'],
      'the state dir main saved is the one stopped, and the daemon it started');
      assert.strictEqual(fs.readFileSync(r.files.GITHUB_STEP_SUMMARY, 'utf8'),
        `# an earlier step\n## footprint: ${verdict}\n`, 'appended, not replaced');
      assert.deepStrictEqual(parseFileCommand(r.files.GITHUB_OUTPUT), { receipt });
      assert.strictEqual(res.stdout.includes('::error title=footprint::step build: wrote /etc/hosts\n'), fail,
        'the annotations pass through');
      if (!fail)
        assert.doesNotMatch(res.stdout, /::(error|warning)/);
      else if (mode === 'gate')
        assert.match(res.stdout, /^::error title=footprint::the verdict failed: see the job summary/m);
      else
        assert.match(res.stdout, /^::warning title=footprint::the verdict failed.*mode: audit/m);
    });
  }
}

test('a sidecar that cannot start fails main in either mode, and post in gate mode', () => {
  for (const mode of ['gate', 'audit']) {
    const r = runner({ start: 'fail' });
    const res = step(r, 'main', { mode });
    assert.strictEqual(res.status, 1);
    assert.match(res.stdout, /^::error title=footprint::the sidecar did not start \(exit 125\)/m);
    assert.match(res.stderr, /footprint: sidecar: cannot load the BPF programs/);
    const post = step(r, 'post', { mode });
    assert.strictEqual(post.status, mode === 'gate' ? 1 : 0, post.stdout);
    assert.match(post.stdout, /could not be stopped and judged \(exit 2\)/);
    assert.deepStrictEqual(parseFileCommand(r.files.GITHUB_OUTPUT), {}, 'no receipt to point at');
  }
});

function failsClosed(r, mode, want) {
  const res = step(r, 'post', { mode });
  assert.strictEqual(res.status, mode === 'gate' ? 1 : 0, res.stdout + res.stderr);
  assert.match(res.stdout, new RegExp(`^::${mode === 'gate' ? 'error' : 'warning'} title=footprint::.*${want}`, 'm'));
  assert.deepStrictEqual(parseFileCommand(r.files.GITHUB_OUTPUT), {});
  assert.strictEqual(fs.readFileSync(r.files.GITHUB_STEP_SUMMARY, 'utf8'), '# an earlier step\n');
}

test('post fails closed when footprint is gone', () => {
  for (const mode of ['gate', 'audit']) {
    const r = runner();
    assert.strictEqual(step(r, 'main', { mode }).status, 0);
    fs.rmSync(path.join(r.bin, 'footprint'));
    failsClosed(r, mode, 'could not be stopped and judged \\(exit 127\\)');
  }
});

test('post fails closed when footprint crashes, and never reports a stale receipt', () => {
  for (const mode of ['gate', 'audit']) {
    const r = runner({ stop: 'crash' });
    assert.strictEqual(step(r, 'main', { mode }).status, 0);
    /* left by an earlier job on a self-hosted runner */
    fs.writeFileSync(path.join(r.temp, 'footprint-receipt.json'), '{"verdict":{"ok":true}}');
    fs.writeFileSync(path.join(r.temp, 'footprint-summary.md'), '## footprint: ok\n');
    failsClosed(r, mode, 'killed by SIGKILL');
    assert.ok(!fs.existsSync(path.join(r.temp, 'footprint-receipt.json')));
  }
});

test('post without a saved state fails closed and runs nothing', () => {
  const r = runner();
  failsClosed(r, 'gate', 'never started');
  assert.deepStrictEqual(calls(r, 'sudo'), []);
});

test('a bad mode or a missing footprint fails main before anything runs', () => {
  let r = runner();
  let res = step(r, 'main', { mode: 'block' });
  assert.strictEqual(res.status, 1);
  assert.match(res.stdout, /^::error title=footprint::the mode input wants gate or audit, got 'block'$/m);
  assert.deepStrictEqual(calls(r, 'sudo'), []);

  r = runner();
  res = step(r, 'main', { footprint: 'no-such-footprint', build: 'false' });
  assert.strictEqual(res.status, 1);
  assert.match(res.stdout, /^::error title=footprint::'no-such-footprint' is not on PATH/m);
  assert.deepStrictEqual(calls(r, 'sudo'), []);
});

test('a message cannot inject a workflow command of its own', () => {
  const r = runner();
  const res = step(r, 'main', { mode: 'x\n::add-mask::y' });
  assert.strictEqual(res.status, 1);
  assert.match(res.stdout, /got 'x%0A::add-mask::y'/);
  assert.doesNotMatch(res.stdout, /^::add-mask/m);
});

/* High 5 of issue 28: the job's PATH and environment are a step's to set
 * ($GITHUB_PATH, $GITHUB_ENV), and exit 0 alone says nothing */

test('post runs /usr/bin/sudo, never a sudo a step put first on PATH', () => {
  const r = runner();
  assert.strictEqual(step(r, 'main').status, 0);
  /* a "sudo" that would say all is well without stopping anything */
  const evil = path.join(r.top, 'evil');
  fs.mkdirSync(evil);
  fs.writeFileSync(path.join(evil, 'sudo'), `#!/bin/sh\n"${NODE}" "${path.join(r.top, 'recorder.js')}" evil-sudo "$@"\nexit 0\n`,
    { mode: 0o755 });
  const res = step(r, 'post', {}, { PATH: `${evil}:${r.bin}:${process.env.PATH}` });
  assert.strictEqual(res.status, 0, res.stdout + res.stderr);
  assert.deepStrictEqual(calls(r, 'evil-sudo'), [], 'the sudo on PATH was run');
  assert.strictEqual(calls(r, 'sudo').length, 2);
  assert.strictEqual(calls(r, 'footprint')[1].argv[1], 'stop');
});

test('post runs the footprint main recorded, not one a step put on PATH', () => {
  const r = runner();
  assert.strictEqual(step(r, 'main').status, 0);
  const evil = path.join(r.top, 'evil');
  fs.mkdirSync(evil);
  fs.writeFileSync(path.join(evil, 'footprint'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const res = step(r, 'post', {}, { PATH: `${evil}:${r.bin}:${process.env.PATH}` });
  assert.strictEqual(res.status, 0, res.stdout + res.stderr);
  assert.strictEqual(calls(r, 'sudo')[1].argv[2], path.join(r.bin, 'footprint'));
});

test('post without a recorded footprint fails closed and runs nothing', () => {
  const r = runner();
  assert.strictEqual(step(r, 'main').status, 0);
  const res = step(r, 'post', {}, { STATE_footprint: '' });
  assert.strictEqual(res.status, 1);
  assert.match(res.stdout, /^::error title=footprint::the main step recorded no footprint/m);
  assert.strictEqual(calls(r, 'sudo').length, 1);
});

test('sudo gets no LD_* nor any other variable that runs code', () => {
  const planted = {
    LD_PRELOAD: '/tmp/evil.so', LD_LIBRARY_PATH: '/tmp/evil', LD_AUDIT: '/tmp/evil.so',
    GCONV_PATH: '/tmp/evil', GLIBC_TUNABLES: 'glibc.malloc.check=3', BASH_ENV: '/tmp/evil.sh',
    'BASH_FUNC_sudo%%': '() { true; }', PYTHONPATH: '/tmp/evil', PERL5OPT: '-Mevil',
    HOSTALIASES: '/tmp/hosts', TMPDIR: '/tmp/evil', IFS: ' ',
  };
  for (const script of ['main', 'post']) {
    const r = runner();
    if (script === 'post') assert.strictEqual(step(r, 'main').status, 0);
    const res = step(r, script, {}, planted);
    assert.strictEqual(res.status, 0, res.stdout + res.stderr);
    const [sudo] = calls(r, 'sudo').slice(-1);
    for (const name of Object.keys(planted))
      assert.ok(!(name in sudo.env), `${script}: ${name} reached sudo`);
    assert.strictEqual(sudo.env.PATH, '/usr/sbin:/usr/bin:/sbin:/bin');
    assert.strictEqual(sudo.env.GITHUB_WORKSPACE, r.work, 'the rest is kept');
  }
});

test('exit 0 with no receipt fails closed', () => {
  for (const mode of ['gate', 'audit']) {
    const r = runner({ stop: 'noreceipt' });
    assert.strictEqual(step(r, 'main', { mode }).status, 0);
    const res = step(r, 'post', { mode });
    assert.strictEqual(res.status, mode === 'gate' ? 1 : 0, res.stdout + res.stderr);
    assert.match(res.stdout, /footprint wrote no readable receipt \(exit 0\)/);
    assert.deepStrictEqual(parseFileCommand(r.files.GITHUB_OUTPUT), {});
  }
});

test('exit 0 over a receipt whose verdict failed fails closed', () => {
  const r = runner({ stop: 'lie' });
  assert.strictEqual(step(r, 'main').status, 0);
  const res = step(r, 'post');
  assert.strictEqual(res.status, 1, res.stdout + res.stderr);
  assert.match(res.stdout, /^::error title=footprint::footprint exited 0 but its receipt says ok: false/m);
});

test('a receipt that is a link a step left is no receipt', () => {
  const r = runner({ stop: 'noreceipt' });
  assert.strictEqual(step(r, 'main').status, 0);
  /* made between post's removal and the stop: here, by the stand-in */
  const good = path.join(r.top, 'good.json');
  fs.writeFileSync(good, JSON.stringify({ ok: true }));
  fs.writeFileSync(path.join(r.top, 'scenario.json'), JSON.stringify({ start: 'ok', stop: 'noreceipt' }));
  const link = path.join(r.temp, 'footprint-receipt.json');
  const fpFile = path.join(r.bin, 'footprint');
  fs.writeFileSync(fpFile, fs.readFileSync(fpFile, 'utf8').replace("if (sc.stop === 'crash')",
    `if (a[1] === 'stop') fs.symlinkSync(${JSON.stringify(good)}, ${JSON.stringify(link)});\nif (sc.stop === 'crash')`));
  const res = step(r, 'post');
  assert.strictEqual(res.status, 1, res.stdout + res.stderr);
  assert.match(res.stdout, /no readable receipt/);
});

test('main fails when start does not name its daemon, and post still stops it', () => {
  const r = runner({ start: 'mute' });
  const res = step(r, 'main');
  assert.strictEqual(res.status, 1);
  assert.match(res.stdout, /did not say which daemon it started/);
  const post = step(r, 'post');
  assert.strictEqual(post.status, 0, post.stdout);
  assert.ok(!calls(r, 'footprint')[1].argv.includes('--daemon'));
});
