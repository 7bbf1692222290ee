'use strict';
/*
 * What main.js and post.js share. No npm dependency (no @actions/core):
 * inputs are the INPUT_* variables, state and outputs are lines appended
 * to the files the runner names in GITHUB_STATE and GITHUB_OUTPUT, and
 * messages are workflow commands on stdout.
 */
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

class Fail extends Error {}

function input(name) {
  return (process.env[`INPUT_${name.toUpperCase()}`] || '').trim();
}

function mode() {
  const m = input('mode') || 'gate';
  if (m !== 'gate' && m !== 'audit')
    throw new Fail(`the mode input wants gate or audit, got '${m}'`);
  return m;
}

function need(name) {
  const v = process.env[name];
  if (!v) throw new Fail(`${name} is not set; run this action in a GitHub Actions job`);
  return v;
}

/* The runner's file commands, in their one-line form "name=value". */
function fileCommand(file, name, value) {
  if (/[\r\n]/.test(value)) throw new Fail(`${name}: a value with a newline: ${JSON.stringify(value)}`);
  fs.appendFileSync(need(file), `${name}=${value}\n`);
}

/* %, CR and LF would end or bend a workflow command. */
function command(kind, msg) {
  const data = String(msg).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  console.log(`::${kind} title=footprint::${data}`);
}

/*
 * Resolved here, on the job's PATH: sudo would search only its own
 * secure_path, where a footprint installed by the workflow is not.
 */
function findFootprint(name) {
  if (name.includes('/')) return path.resolve(name);
  for (const dir of (process.env.PATH || '').split(':')) {
    const p = path.join(dir || '.', name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return path.resolve(p);
    } catch {}
  }
  throw new Fail(`'${name}' is not on PATH; install footprint or give the footprint input`);
}

/*
 * sudo by its absolute path: a step may put a `sudo` of its own first on
 * the job's PATH ($GITHUB_PATH), and the runner passes that PATH on to
 * this step too.
 */
const SUDO = '/usr/bin/sudo';
const SAFE_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

/*
 * What a step may have put in the environment ($GITHUB_ENV) to run code
 * of its own in sudo, in footprint, or in a shell between them: ld.so's
 * and glibc's unsecure variables (LD_*, GCONV_PATH, ...), those sudo
 * strips (its bad-environment table) and the interpreters' own.
 */
const UNSAFE = [
  /^LD_/, /^GCONV_PATH$/, /^GETCONF_DIR$/, /^GLIBC_TUNABLES$/, /^HOSTALIASES$/,
  /^LOCALDOMAIN$/, /^LOCPATH$/, /^MALLOC_/, /^NIS_PATH$/, /^NLSPATH$/,
  /^RESOLV_HOST_CONF$/, /^RES_OPTIONS$/, /^TMPDIR$/, /^TZDIR$/, /^PATH_LOCALE$/,
  /^_RLD/, /^SHLIB_PATH$/, /^LIBPATH$/, /^LDR_/, /^IFS$/, /^CDPATH$/, /^ENV$/,
  /^BASH_ENV$/, /^BASH_FUNC_/, /^SHELLOPTS$/, /^BASHOPTS$/, /^PS4$/,
  /^GLOBIGNORE$/, /^TERMINFO/, /^TERMCAP$/, /^TERMPATH$/, /^FPATH$/,
  /^ZDOTDIR$/, /^JAVA_TOOL_OPTIONS$/, /^PERL/, /^PYTHON/, /^RUBY/, /^NODE_/,
  /^SUDO_/, /^RUNNER_TRACKING_ID$/,
];

/*
 * The environment sudo is run with: the job's, without what is unsafe,
 * on a PATH of the system's. sudo resets it anyway (env_reset); what is
 * dropped here never reaches sudo itself either.
 */
function safeEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (UNSAFE.some((re) => re.test(k)) || k.includes('%') || /^\(\)/.test(v)) continue;
    env[k] = v;
  }
  env.PATH = SAFE_PATH;
  return env;
}

/*
 * sudo resets the environment; GITHUB_ACTIONS is kept because it is how
 * footprint knows to trace the tree of Runner.Worker by default. out:
 * 'pipe' to read footprint's stdout, else it goes to the job's log.
 */
function sudo(fp, args, out = 'inherit') {
  return spawnSync(SUDO, ['-n', '--preserve-env=GITHUB_ACTIONS', fp, ...args],
                   { env: safeEnv(), stdio: ['ignore', out, 'inherit'], encoding: 'utf8' });
}

function how(r) {
  if (r.error) return `${SUDO}: ${r.error.message}`;
  if (r.signal) return `footprint was killed by ${r.signal}`;
  return `exit ${r.status}`;
}

/*
 * The receipt stop wrote, parsed, or null: a regular file (not a link a
 * step left there), not absurdly large, a JSON object with a boolean ok.
 */
const RECEIPT_MAX = 256 << 20;
function readReceipt(file) {
  let st;
  try {
    st = fs.lstatSync(file);
  } catch {
    return null;
  }
  if (!st.isFile() || st.size > RECEIPT_MAX) return null;
  try {
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    return doc && typeof doc === 'object' && typeof doc.ok === 'boolean' ? doc : null;
  } catch {
    return null;
  }
}

module.exports = {
  Fail, input, mode, need, fileCommand, command, findFootprint, sudo, how, readReceipt,
  safeEnv, SUDO, UNSAFE,
};
