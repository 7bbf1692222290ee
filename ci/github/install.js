'use strict';
/*
 * Install footprint for main.js when the job needs it (docs/ci.md):
 *  - the deb input, a .deb by path or by http(s) URL, is installed with
 *    apt-get (which fetches its Depends:). A URL needs the deb-sha256
 *    input and a path may have it: the file's SHA-256 is checked before
 *    anything is installed, and a mismatch installs nothing;
 *  - else a footprint already on PATH is used as it is;
 *  - else, unless the build input is false, footprint is built with this
 *    repository's own scripts (install-deps build, then scripts/package)
 *    and the .deb it makes is installed the same way.
 * Everything runs synchronously, as main.js does: the download is done
 * by a child node (fetch is asynchronous).
 */
const { spawnSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const lib = require('./lib');

const REPO = path.resolve(__dirname, '..', '..');
const DEB_MAX = 256 << 20; /* footprint's .deb is well under 1 MiB */
const FETCH_TIMEOUT_MS = 10 * 60 * 1000;

/* what the child node runs: url, dest and the size bound in argv */
const FETCH = `
const fs = require('fs');
const [url, dest, max] = process.argv.slice(1);
(async () => {
  const res = await fetch(url, { redirect: 'follow' });
  if (!res.ok) throw new Error('HTTP ' + res.status + ' ' + res.statusText);
  const chunks = [];
  let n = 0;
  for await (const c of res.body) {
    n += c.length;
    if (n > Number(max)) throw new Error('larger than ' + max + ' bytes');
    chunks.push(c);
  }
  fs.writeFileSync(dest, Buffer.concat(chunks), { flag: 'wx', mode: 0o600 });
})().catch((e) => {
  console.error(e.cause ? e.message + ': ' + e.cause.message : e.message);
  process.exit(1);
});
`;

function sha256(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function run(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
}

/* The deb input, as a local file whose hash (if pinned) is checked. */
function obtain(deb, pin) {
  let file = deb;
  if (/^[a-z][a-z0-9+.-]*:/i.test(deb)) {
    const scheme = deb.slice(0, deb.indexOf(':')).toLowerCase();
    if (scheme !== 'https' && scheme !== 'http')
      throw new lib.Fail(`the deb input wants a path or an http(s) URL, got '${deb}'`);
    if (!pin)
      throw new lib.Fail(`a deb URL needs the deb-sha256 input (sha256sum of the .deb), so that what is installed is what you pinned: ${deb}`);
    const dir = fs.mkdtempSync(path.join(lib.need('RUNNER_TEMP'), 'footprint-deb-'));
    file = path.join(dir, 'footprint.deb');
    console.log(`footprint: downloading ${deb}`);
    const r = spawnSync(process.execPath, ['-e', FETCH, deb, file, String(DEB_MAX)],
                        { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8',
                          timeout: FETCH_TIMEOUT_MS });
    if (r.error || r.status !== 0) {
      fs.rmSync(dir, { recursive: true, force: true });
      const why = r.error ? r.error.message : (r.stderr || '').trim() || lib.how(r);
      throw new lib.Fail(`cannot download the deb input ${deb}: ${why}`);
    }
  } else {
    file = path.resolve(deb);
    if (!fs.existsSync(file) || !fs.statSync(file).isFile())
      throw new lib.Fail(`the deb input ${deb} is not a file`);
  }
  if (pin) {
    const got = sha256(file);
    if (got !== pin) {
      if (file !== path.resolve(deb)) fs.rmSync(path.dirname(file), { recursive: true, force: true });
      throw new lib.Fail(`the deb input ${deb} has sha256 ${got}, not the ${pin} deb-sha256 pins; nothing was installed`);
    }
  }
  return file;
}

/*
 * apt-get fetches the Depends: the package declares. A runner's package
 * lists may be stale: on failure they are updated and the install tried
 * once more. --allow-downgrades: untagged versions (0.1.0+g<commit>) do
 * not sort by date, and the file given is the one wanted.
 */
function install(file) {
  console.log(`footprint: installing ${file} (sha256 ${sha256(file)})`);
  const apt = ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', 'install', '-y', '-q',
               '--no-install-recommends', '--allow-downgrades', file];
  let r = run('sudo', apt);
  if (!r.error && r.status === 0) return;
  run('sudo', ['-n', 'apt-get', 'update', '-q']);
  r = run('sudo', apt);
  if (r.error || r.status !== 0)
    throw new lib.Fail(`apt-get could not install ${file} (${lib.how(r)})`);
}

/*
 * An action downloaded by the runner is a tarball of the repository at
 * the ref, without .git: give the build the commit, when the ref is one,
 * as a release tarball's VERSION file would ("VERSION COMMIT").
 */
function versionFile() {
  const ref = process.env.GITHUB_ACTION_REF || '';
  const file = path.join(REPO, 'VERSION');
  if (fs.existsSync(path.join(REPO, '.git')) || fs.existsSync(file) || !/^[0-9a-f]{40}$/.test(ref))
    return;
  const cmake = fs.readFileSync(path.join(REPO, 'CMakeLists.txt'), 'utf8');
  const m = cmake.match(/project\(footprint VERSION ([0-9.]+)/);
  if (m) fs.writeFileSync(file, `${m[1]}+g${ref.slice(0, 12)} ${ref}\n`);
}

/* scripts/package's .deb, built as the job's user in RUNNER_TEMP. */
function build() {
  const temp = lib.need('RUNNER_TEMP');
  console.log(`footprint: not installed; building it from ${REPO} (scripts/package)`);
  let r = run('sudo', ['-n', path.join(REPO, 'scripts', 'install-deps'), 'build']);
  if (r.error || r.status !== 0)
    throw new lib.Fail(`scripts/install-deps build failed (${lib.how(r)}); give the deb input instead`);
  versionFile();
  r = run(path.join(REPO, 'scripts', 'package'), ['--out', path.join(temp, 'footprint-deb')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    env: { ...process.env, FOOTPRINT_BUILD_DIR: path.join(temp, 'footprint-build') },
  });
  const deb = (r.stdout || '').trim().split('\n').pop();
  if (r.error || r.status !== 0 || !deb || !deb.endsWith('.deb'))
    throw new lib.Fail(`scripts/package failed (${lib.how(r)}); give the deb input instead`);
  return deb;
}

/* The footprint main.js starts the sidecar with, installed if need be. */
function ensure(name) {
  const deb = lib.input('deb');
  const pin = lib.input('deb-sha256').toLowerCase();
  if (pin && !/^[0-9a-f]{64}$/.test(pin))
    throw new lib.Fail(`the deb-sha256 input wants 64 hex digits, got '${pin}'`);
  const doBuild = lib.input('build') || 'true';
  if (doBuild !== 'true' && doBuild !== 'false')
    throw new lib.Fail(`the build input wants true or false, got '${doBuild}'`);
  if (deb) {
    install(obtain(deb, pin));
    return lib.findFootprint(name);
  }
  if (pin) throw new lib.Fail('deb-sha256 is given without the deb input it pins');
  try {
    return lib.findFootprint(name);
  } catch (e) {
    if (!(e instanceof lib.Fail)) throw e;
    if (doBuild === 'false')
      throw new lib.Fail(`'${name}' is not on PATH and the build input is false: install footprint, or give the deb input`);
  }
  install(build());
  return lib.findFootprint(name);
}

module.exports = { ensure, REPO };
