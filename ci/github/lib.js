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
 * sudo resets the environment; GITHUB_ACTIONS is kept because it is how
 * footprint knows to trace the tree of Runner.Worker by default.
 */
function sudo(fp, args, env) {
  return spawnSync('sudo', ['-n', '--preserve-env=GITHUB_ACTIONS', fp, ...args],
                   { env, stdio: ['ignore', 'inherit', 'inherit'] });
}

function how(r) {
  if (r.error) return `sudo: ${r.error.message}`;
  if (r.signal) return `footprint was killed by ${r.signal}`;
  return `exit ${r.status}`;
}

module.exports = { Fail, input, mode, need, fileCommand, command, findFootprint, sudo, how };
