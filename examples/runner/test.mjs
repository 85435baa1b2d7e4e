#!/usr/bin/env node
// End-to-end test of the reference runner against the scripted model (no
// network): node examples/runner/test.mjs PATH_TO_AGENT
//
// Every scenario runs in its own temp folders (HOME, AGENT_STATE_DIR, work
// dir) and has 60 s at most; every wait inside it has its own, shorter,
// bound. Exit status 0 when all pass, 1 otherwise.
//
// The re-attach scenario runs twice: with the agent's stderr in a file, and
// left on the PTY (an agent that prints a diagnostic to a PTY whose reader is
// gone must not die of it).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

import {
  AgentRunner,
  LineSplitter,
  answerByFile,
  attachAgent,
  formatSse,
  parseEventLine,
  parseSse,
  policies,
  startAgent,
  toSse,
} from './runner.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const RUNNER = join(HERE, 'runner.mjs');
const SCENARIO_MS = 60_000;
const WAIT_MS = 20_000;

const agentArg = process.argv[2];
if (!agentArg) {
  process.stderr.write('usage: node test.mjs PATH_TO_AGENT_BINARY\n');
  process.exit(2);
}
const AGENT = resolve(agentArg);
if (!existsSync(AGENT)) {
  process.stderr.write(`no agent binary at ${AGENT}\n`);
  process.exit(2);
}

// The table of INTEGRATION-PLAN.md, written out again on purpose: the test
// checks the runner against the document, not against itself.
/** @type {Record<string, string | null>} */
const EXPECTED_SSE = {
  'session-start': 'session',
  'tools-changed': 'tools',
  'user-message': 'user_message',
  'text-delta': 'assistant_delta',
  'reasoning-delta': 'reasoning_delta',
  activity: 'activity',
  'tool-call-start': 'tool_start',
  'exec-log': 'tool_output',
  'file-delta': 'file_stream',
  'file-complete': 'file_changed',
  'tool-result': 'tool_end',
  'todos-update': 'todos',
  'hitl-request': 'needs_input',
  'hitl-resolved': 'input_resolved',
  'plan-confirmed': 'plan_confirmed',
  'mode-changed': 'mode',
  'usage-update': 'usage',
  'checkpoint-saved': 'checkpoint',
  'checkpoint-restored': 'restored',
  summarizing: 'compacting',
  summarized: 'compacting',
  'command-ack': null,
  error: 'error',
  'session-end': 'done',
};

// ---------------------------------------------------------------------------
// Helpers

/** Everything a scenario started, killed if it is still there at the end. */
/** @type {Array<() => void>} */
let cleanups = [];
/** @type {string[]} every temp root, removed after a run where all passed */
const roots = [];

/**
 * A temp root with home, state and work folders and a config.
 * @param {string} name
 */
async function makeEnv(name) {
  const root = await mkdtemp(join(tmpdir(), `agent-runner-${name}-`));
  roots.push(root);
  const home = join(root, 'home');
  const state = join(root, 'state');
  const work = join(root, 'work');
  const hitl = join(root, 'hitl');
  for (const dir of [home, state, work, hitl]) await mkdir(dir, { recursive: true });
  const config = join(root, 'config.toml');
  await writeFile(
    config,
    [
      '[exec]',
      'login_shell = false',
      '[hitl]',
      'timeout_secs = 60',
      '[[approval.exec]]',
      'pattern = "echo needs-approval*"',
      'decision = "ask"',
      '',
    ].join('\n'),
  );
  /** @type {Record<string, string>} */
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(AGENT_|STRAYL_|XDG_)/.test(key)) continue;
    env[key] = value;
  }
  env.HOME = home;
  env.XDG_CONFIG_HOME = join(home, '.config');
  env.AGENT_STATE_DIR = state;
  return {
    root,
    home,
    state,
    work,
    hitl,
    config,
    env,
    /** @param {object} turns */
    async script(turns) {
      const path = join(root, 'script.json');
      await writeFile(path, JSON.stringify({ turns }));
      return path;
    },
    /** @param {string} sessionId */
    journal(sessionId) {
      const path = join(state, 'sessions', sessionId, 'journal.jsonl');
      if (!existsSync(path)) return [];
      return readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line));
    },
  };
}

/** A command that prints `waiting`, then waits for the file `go` in the work dir. */
const GATED = 'echo waiting; for i in $(seq 600); do [ -f go ] && break; sleep 0.05; done; echo released';

/** A Writable that keeps the SSE text written to it. */
function textSink() {
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      sink.text += chunk.toString();
      callback();
    },
  });
  /** @type {string} */
  sink.text = '';
  return /** @type {Writable & {text: string}} */ (sink);
}

/** @param {string[]} lines */
const quietLog = (lines) => (/** @type {string} */ message) => lines.push(message);

/**
 * The common options of a runner in a test env.
 * @param {Awaited<ReturnType<typeof makeEnv>>} env
 * @param {string[]} logLines
 */
function base(env, logLines) {
  return { agent: AGENT, env: env.env, log: quietLog(logLines), cwd: env.root };
}

/**
 * Checks an SSE stream against the session's journal (the agent's own record
 * of every line it wrote): every event but `command-ack` appears exactly once,
 * in order, with its `_seq` as id and the SSE name of the table.
 * @param {import('./runner.mjs').SseMessage[]} sse
 * @param {import('./runner.mjs').AgentEvent[]} journal
 */
function checkAgainstJournal(sse, journal) {
  assert.ok(journal.length > 0, 'the journal is empty');
  journal.forEach((event, index) => assert.equal(event._seq, index + 1, 'journal _seq'));
  const expected = journal
    .filter((event) => EXPECTED_SSE[event.type] !== null)
    .map((event) => ({ id: event._seq, event: EXPECTED_SSE[event.type] ?? 'agent' }));
  assert.deepEqual(
    sse.map((message) => ({ id: message.id, event: message.event })),
    expected,
    'the SSE stream is the journal, mapped, without command-ack',
  );
  for (let i = 1; i < sse.length; i++) {
    assert.ok(sse[i].id > sse[i - 1].id, 'ids increase');
    const skipped = journal.slice(sse[i - 1].id, sse[i].id - 1);
    assert.ok(
      skipped.every((event) => event.type === 'command-ack'),
      `ids ${sse[i - 1].id} -> ${sse[i].id} skip only command-acks`,
    );
  }
  assert.equal(sse.at(-1)?.event, 'done', 'the stream ends with done');
}

/**
 * Runs the runner's command line as a child process, collecting the SSE
 * messages of its stdout as they complete.
 * @param {string[]} args
 * @param {Record<string, string>} env
 */
function runCli(args, env) {
  const child = spawn(process.execPath, [RUNNER, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  cleanups.push(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  const state = {
    child,
    /** @type {import('./runner.mjs').SseMessage[]} */
    messages: [],
    stdout: '',
    stderr: '',
    pending: '',
    /** @type {Promise<{code: number | null, signal: NodeJS.Signals | null}>} */
    exited: new Promise((resolveExit) => child.on('exit', (code, signal) => resolveExit({ code, signal }))),
    /** @type {Array<() => void>} */
    listeners: [],
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    state.stdout += chunk;
    state.pending += chunk;
    let end;
    while ((end = state.pending.indexOf('\n\n')) >= 0) {
      const block = state.pending.slice(0, end + 2);
      state.pending = state.pending.slice(end + 2);
      state.messages.push(...parseSse(block));
    }
    for (const listener of state.listeners) listener();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    state.stderr += chunk;
  });
  return {
    ...state,
    get messages() {
      return state.messages;
    },
    get stderr() {
      return state.stderr;
    },
    get stdout() {
      return state.stdout;
    },
    get pending() {
      return state.pending;
    },
    /**
     * @param {(message: import('./runner.mjs').SseMessage) => boolean} predicate
     * @param {string} what
     */
    waitFor(predicate, what) {
      return new Promise((resolveWait, reject) => {
        const check = () => {
          const found = state.messages.find(predicate);
          if (!found) return;
          clearTimeout(timer);
          state.listeners = state.listeners.filter((listener) => listener !== check);
          resolveWait(found);
        };
        const timer = setTimeout(() => {
          state.listeners = state.listeners.filter((listener) => listener !== check);
          reject(new Error(`timed out waiting for ${what}; stderr:\n${state.stderr}`));
        }, WAIT_MS);
        state.listeners.push(check);
        check();
      });
    },
  };
}

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<T>}
 */
function within(promise, ms, what) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * A started runner, killed at the end of the scenario if still running.
 * @param {AgentRunner} runner
 */
function track(runner) {
  cleanups.push(() => {
    if (!runner.exited) runner.kill('SIGKILL');
  });
  return runner;
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

// ---------------------------------------------------------------------------
// Scenarios

/** @type {Array<[string, () => Promise<void>]>} */
const scenarios = [];
/**
 * @param {string} name
 * @param {() => Promise<void>} body
 */
const scenario = (name, body) => scenarios.push([name, body]);

scenario('lines and SSE text', async () => {
  const splitter = new LineSplitter();
  const event = '{"type":"text-delta","_seq":4,"ts":"t","delta":"h\\u00e9","iteration":1}';
  // Split anywhere: inside a line, between \r and \n, empty lines between.
  const wire = `${event}\r\n\r\nnot json at all\r\n${event.replace('4', '5')}\r\n{"type":"x","_seq":6,"ts":"t"}`;
  /** @type {string[]} */
  const lines = [];
  for (let i = 0; i < wire.length; i += 7) lines.push(...splitter.push(wire.slice(i, i + 7)));
  assert.deepEqual(lines, [event, 'not json at all', event.replace('4', '5')]);
  assert.deepEqual(splitter.flush(), ['{"type":"x","_seq":6,"ts":"t"}']);
  assert.equal(parseEventLine('not json at all'), null);
  assert.equal(parseEventLine('[1,2]'), null);
  assert.equal(parseEventLine('{"type":"x"}'), null, 'no _seq');
  const parsed = parseEventLine(event);
  assert.ok(parsed);
  const message = toSse(parsed);
  assert.deepEqual(message, { id: 4, event: 'assistant_delta', data: { delta: 'hé', iteration: 1 } });
  assert.equal(formatSse(message), 'id: 4\nevent: assistant_delta\ndata: {"delta":"hé","iteration":1}\n\n');
  assert.deepEqual(parseSse(formatSse(message)), [message]);
  assert.equal(toSse({ type: 'command-ack', _seq: 9, command: 'inject', ok: true }), null);
  const future = { type: 'weather-report', _seq: 10, ts: 't', sky: 'blue' };
  assert.deepEqual(toSse(future), { id: 10, event: 'agent', data: future });
  const saved = { type: 'checkpoint-saved', _seq: 3, ts: 't', iteration: 1, checkpoint: '/state/x.json', files_changed: 2 };
  assert.deepEqual(toSse(saved)?.data, { iteration: 1, files_changed: 2 }, 'the checkpoint path stays server-side');
});

scenario('a program on the PTY that writes garbage and an unknown event', async () => {
  const env = await makeEnv('garbage');
  const fake = join(env.root, 'fake-agent.sh');
  // printf writes \n; the PTY makes it \r\n. A fresh line first, as the
  // agent writes on a terminal (the shell's last bytes need not end a line),
  // then a line of diagnostics, empty lines, an event type from the future.
  await writeFile(
    fake,
    `#!/bin/sh
printf '\\n'
printf '%s\\n' '{"type":"session-start","_seq":1,"ts":"t","session_id":"fake","model":"pro","mode":"normal","tools":[],"resumed":false,"version":"0","protocol":1,"work_dir":"/"}'
printf '%s\\n' 'agent: warning: this is stderr merged into the PTY'
printf '\\n\\n'
printf '%s\\n' '{"type":"weather-report","_seq":2,"ts":"t","sky":"blue"}'
printf '%s\\n' '{"type":"session-end","_seq":3,"ts":"t","exit_reason":"completed","iterations":0,"duration_ms":1,"total_input_tokens":0,"total_output_tokens":0,"total_cached_input_tokens":0,"total_reasoning_tokens":0}'
`,
  );
  await chmod(fake, 0o755);
  /** @type {string[]} */
  const log = [];
  const sink = textSink();
  const runner = track(new AgentRunner(fake, [], { env: env.env, log: quietLog(log), sseOut: sink }));
  /** @type {string[]} */
  const garbage = [];
  runner.on('garbage', (line) => garbage.push(line));
  /** @type {string[]} */
  const noise = [];
  runner.on('noise', (line) => noise.push(line));
  const exit = await runner.finish(WAIT_MS);
  assert.equal(exit.exitCode, 0);
  assert.deepEqual(garbage, ['agent: warning: this is stderr merged into the PTY']);
  assert.ok(
    noise.some((line) => line.includes(`exec ${fake}`)),
    `the shell echoed the typed line: ${JSON.stringify(noise)}`,
  );
  assert.ok(!log.some((line) => line.includes('exec ')), 'the shell\'s own output is not logged as a bug');
  assert.ok(log.some((line) => line.includes('not an event line')), 'the garbage is logged');
  const sse = parseSse(sink.text);
  assert.deepEqual(
    sse.map((message) => [message.id, message.event]),
    [
      [1, 'session'],
      [2, 'agent'],
      [3, 'done'],
    ],
  );
  assert.deepEqual(sse[1].data, { type: 'weather-report', _seq: 2, ts: 't', sky: 'blue' });
});

scenario('a full session through the command line, every event mapped', async () => {
  const env = await makeEnv('full');
  await writeFile(join(env.work, 'notes.md'), 'Readings above 40 are suspicious.\n');
  const script = await env.script([
    {
      reasoning: 'I should look at the notes first.',
      text: 'Let me look around.',
      tool_calls: [
        { name: 'todo_write', args: { todos: [{ content: 'Write the report', status: 'in_progress' }] } },
        { name: 'list_dir', args: {} },
        { name: 'read_file', args: { path: 'notes.md' } },
      ],
    },
    {
      text: 'Writing the report.',
      tool_calls: [{ name: 'write_file', args: { path: 'report.md', content: '# Report\n\nNothing is above 40.\n' } }],
    },
    {
      tool_calls: [
        { name: 'exec', args: { command: 'echo to-stdout; echo to-stderr >&2' } },
        { name: 'edit_file', args: { path: 'report.md', old_string: 'Nothing', new_string: 'No reading' } },
      ],
    },
    { text: 'Done: report.md is written.' },
  ]);
  const cli = runCli(
    [
      'run',
      '--agent',
      AGENT,
      '--',
      '--script',
      script,
      '--prompt',
      'Summarise the notes',
      '--session-id',
      'full-1',
      '--work-dir',
      env.work,
      '--config',
      env.config,
    ],
    env.env,
  );
  const { code } = await within(cli.exited, WAIT_MS, 'the runner command line');
  assert.equal(code, 0, `runner exit status; stderr:\n${cli.stderr}`);
  assert.equal(cli.pending, '', 'no half SSE message at the end');
  const sse = parseSse(cli.stdout);
  const journal = env.journal('full-1');
  checkAgainstJournal(sse, journal);
  // No commands were sent, so the ids are 1, 2, 3, ... with no gap.
  sse.forEach((message, index) => assert.equal(message.id, index + 1, 'ids count up by one'));
  const types = new Set(journal.map((event) => event.type));
  for (const type of [
    'session-start',
    'user-message',
    'reasoning-delta',
    'text-delta',
    'activity',
    'tool-call-start',
    'todos-update',
    'tool-result',
    'file-delta',
    'file-complete',
    'exec-log',
    'usage-update',
    'checkpoint-saved',
    'session-end',
  ]) {
    assert.ok(types.has(type), `the run has a ${type}`);
  }
  /** @param {string} name */
  const named = (name) => sse.filter((message) => message.event === name);
  assert.deepEqual(Object.keys(named('session')[0].data).sort(), ['mode', 'model', 'resumed', 'session_id', 'tools']);
  assert.equal(named('session')[0].data.session_id, 'full-1');
  assert.deepEqual(named('user_message')[0].data, { text: 'Summarise the notes', source: 'prompt' });
  assert.equal(named('reasoning_delta').map((m) => m.data.delta).join(''), 'I should look at the notes first.');
  assert.ok(named('todos')[0].data.todos[0].content === 'Write the report');
  assert.equal(named('file_stream').map((m) => m.data.delta).join(''), '# Report\n\nNothing is above 40.\n');
  const changed = named('file_changed');
  assert.deepEqual(
    changed.map((m) => [m.data.path, m.data.op]),
    [
      ['report.md', 'create'],
      ['report.md', 'update'],
    ],
  );
  assert.ok(changed[1].data.diff.includes('+No reading is above 40.'));
  const output = named('tool_output');
  assert.ok(output.some((m) => m.data.stream === 'stdout' && m.data.data === 'to-stdout\n'));
  assert.ok(output.some((m) => m.data.stream === 'stderr' && m.data.data === 'to-stderr\n'));
  assert.equal(named('tool_start').length, named('tool_end').length);
  assert.ok(named('tool_end').every((m) => m.data.ok === true), 'every tool succeeded');
  for (const checkpoint of named('checkpoint')) {
    assert.deepEqual(Object.keys(checkpoint.data).sort(), ['files_changed', 'iteration'], 'no sandbox path in SSE');
  }
  const done = named('done');
  assert.equal(done.length, 1);
  assert.equal(done[0].data.exit_reason, 'completed');
  assert.equal(done[0].data.iterations, 4);
  assert.equal(typeof done[0].data.totals.input_tokens, 'number');
  assert.equal(readFileSync(join(env.work, 'report.md'), 'utf8'), '# Report\n\nNo reading is above 40.\n');
});

scenario('a launch that fails ends the PTY with the shell\'s status', async () => {
  const env = await makeEnv('missing');
  /** @type {string[]} */
  const log = [];
  const missing = track(new AgentRunner(join(env.root, 'no-such-agent'), ['--prompt=x'], { env: env.env, log: quietLog(log) }));
  assert.equal((await missing.finish(WAIT_MS)).exitCode, 127, 'exec: not found');
});

scenario('a 10 KiB prompt that starts with a dash goes through the environment, not the typed line', async () => {
  const env = await makeEnv('long');
  const script = await env.script([{ text: 'Read it all.' }]);
  // A line that long, typed before the shell reads in raw mode, would be cut
  // by the terminal's 4 KiB line buffer and leave the shell waiting.
  const prompt = `- ${'A long message. '.repeat(640)}\nIt's "quoted" and $HOME is not expanded.`;
  /** @type {string[]} */
  const log = [];
  /** @type {string[]} */
  const noise = [];
  const runner = track(
    startAgent({ ...base(env, log), script, prompt, sessionId: 'long-1', workDir: env.work, config: env.config }),
  );
  runner.on('noise', (line) => noise.push(line));
  const exit = await runner.finish(WAIT_MS);
  assert.equal(exit.exitCode, 0, log.join('\n'));
  assert.equal(runner.sse.find((m) => m.event === 'user_message')?.data.text, prompt);
  assert.ok(!noise.some((line) => line.includes('A long message.')), 'the prompt is not echoed back');
  checkAgainstJournal(runner.sse, env.journal('long-1'));
});

scenario('people in the loop: a question on the PTY, one by file, an approval', async () => {
  const env = await makeEnv('hitl');
  const script = await env.script([
    { tool_calls: [{ name: 'ask_user', id: 'q-pty', args: { question: 'Which database?', options: ['sqlite', 'postgres'] } }] },
    { tool_calls: [{ name: 'ask_user', id: 'q-file', args: { question: 'Name the table?' } }] },
    { tool_calls: [{ name: 'exec', id: 'k-exec', args: { command: 'echo needs-approval ok' } }] },
    { text: 'All answered.' },
  ]);
  /** @type {string[]} */
  const log = [];
  /** @type {string[]} */
  const asked = [];
  const runner = track(
    startAgent({
      ...base(env, log),
      script,
      prompt: 'Ask me things',
      sessionId: 'hitl-1',
      workDir: env.work,
      hitlDir: env.hitl,
      config: env.config,
      // The proxy's dialog, played by a policy: the file-answered question
      // is left alone (a later invocation answers it through --hitl-dir).
      onNeedsInput: (request) => {
        asked.push(`${request.kind}:${request.id}`);
        if (request.id === 'q-file') return undefined;
        if (request.kind === 'ask-user') return { decision: 'approve', data: { answer: 'postgres' } };
        return policies.approveAll()(request, runner);
      },
    }),
  );
  const fileRequest = await runner.waitFor((e) => e.type === 'hitl-request' && e.id === 'q-file', WAIT_MS, 'q-file');
  assert.ok(existsSync(join(env.hitl, 'q-file.request.json')), 'the request is in the hitl dir');
  assert.equal(fileRequest.question, 'Name the table?');
  await answerByFile(env.hitl, 'q-file', { decision: 'approve', data: { answer: 'readings' } });
  const exit = await runner.finish(WAIT_MS);
  assert.equal(exit.exitCode, 0, log.join('\n'));
  assert.deepEqual(asked, ['ask-user:q-pty', 'ask-user:q-file', 'approval:k-exec']);
  const acks = runner.events.filter((e) => e.type === 'command-ack');
  assert.deepEqual(
    acks.map((a) => [a.command, a.ok]),
    [
      ['hitl-response', true],
      ['hitl-response', true],
    ],
  );
  const needs = runner.sse.filter((m) => m.event === 'needs_input');
  assert.deepEqual(
    needs.map((m) => [m.data.id, m.data.kind]),
    [
      ['q-pty', 'ask-user'],
      ['q-file', 'ask-user'],
      ['k-exec', 'approval'],
    ],
  );
  assert.deepEqual(needs[0].data.options, ['sqlite', 'postgres']);
  assert.ok(needs[2].data.action.includes('echo needs-approval ok'));
  assert.equal(needs[2].data.default_decision, 'reject');
  assert.deepEqual(
    runner.sse.filter((m) => m.event === 'input_resolved').map((m) => m.data),
    [
      { id: 'q-pty', decision: 'approve', by: 'stdin' },
      { id: 'q-file', decision: 'approve', by: 'file' },
      { id: 'k-exec', decision: 'approve', by: 'stdin' },
    ],
  );
  const ends = runner.sse.filter((m) => m.event === 'tool_end');
  assert.equal(ends[0].data.output, 'The user answered: postgres');
  assert.equal(ends[1].data.output, 'The user answered: readings');
  assert.ok(ends[2].data.ok && ends[2].data.output.includes('needs-approval ok'), ends[2].data.output);
  checkAgainstJournal(runner.sse, env.journal('hitl-1'));
});

scenario('plan mode: the plan is confirmed through the runner', async () => {
  const env = await makeEnv('plan');
  const script = await env.script([
    { tool_calls: [{ name: 'write_plan', args: { plan: '1. Write plan.txt' } }] },
    { tool_calls: [{ name: 'write_file', args: { path: 'plan.txt', content: 'done\n' } }] },
    { text: 'Implemented.' },
  ]);
  /** @type {string[]} */
  const log = [];
  const runner = track(
    startAgent({
      ...base(env, log),
      script,
      prompt: 'Plan, then write',
      mode: 'plan',
      sessionId: 'plan-1',
      workDir: env.work,
      config: env.config,
      onNeedsInput: policies.approveAll(),
    }),
  );
  const exit = await runner.finish(WAIT_MS);
  assert.equal(exit.exitCode, 0, log.join('\n'));
  assert.deepEqual(runner.events.filter((e) => e.type === 'command-ack').map((a) => [a.command, a.ok]), [['confirm-plan', true]]);
  const names = runner.sse.map((m) => m.event);
  assert.ok(names.indexOf('needs_input') < names.indexOf('plan_confirmed'));
  assert.ok(names.indexOf('plan_confirmed') < names.indexOf('mode'));
  assert.deepEqual(runner.sse.find((m) => m.event === 'plan_confirmed')?.data, { plan: '1. Write plan.txt' });
  assert.deepEqual(runner.sse.find((m) => m.event === 'mode')?.data, { from: 'plan', to: 'implement' });
  assert.equal(readFileSync(join(env.work, 'plan.txt'), 'utf8'), 'done\n');
  checkAgainstJournal(runner.sse, env.journal('plan-1'));
});

scenario('inject while a command runs shows up as user_message', async () => {
  const env = await makeEnv('inject');
  const script = await env.script([
    { text: 'Waiting.', tool_calls: [{ name: 'exec', args: { command: GATED } }] },
    { text: 'Done, README too.' },
  ]);
  /** @type {string[]} */
  const log = [];
  const runner = track(
    startAgent({ ...base(env, log), script, prompt: 'wait', sessionId: 'inject-1', workDir: env.work, config: env.config }),
  );
  cleanups.push(() => void writeFile(join(env.work, 'go'), '').catch(() => {}));
  await runner.waitFor((e) => e.type === 'exec-log', WAIT_MS, 'the gated command');
  const text = 'Also update the README.\nAnd a second line; "quoted".';
  const ack = await runner.inject(text);
  assert.equal(ack.ok, true, JSON.stringify(ack));
  assert.equal(ack.command, 'inject');
  await writeFile(join(env.work, 'go'), '');
  const exit = await runner.finish(WAIT_MS);
  assert.equal(exit.exitCode, 0, log.join('\n'));
  const messages = runner.sse.filter((m) => m.event === 'user_message').map((m) => m.data);
  assert.deepEqual(messages, [
    { text: 'wait', source: 'prompt' },
    { text, source: 'inject' },
  ]);
  assert.ok(!runner.sse.some((m) => JSON.stringify(m.data).includes('"type":"inject"')), 'no echo of the command');
  assert.equal(runner.sse.at(-1)?.data.exit_reason, 'completed');
  checkAgainstJournal(runner.sse, env.journal('inject-1'));
});

scenario('cancel stops a long command', async () => {
  const env = await makeEnv('cancel');
  const script = await env.script([
    { tool_calls: [{ name: 'exec', args: { command: 'echo started; sleep 30; echo never' } }] },
    { text: 'not reached' },
  ]);
  /** @type {string[]} */
  const log = [];
  const runner = track(
    startAgent({ ...base(env, log), script, prompt: 'sleep', sessionId: 'cancel-1', workDir: env.work, config: env.config }),
  );
  await runner.waitFor((e) => e.type === 'exec-log', WAIT_MS, 'the long command');
  const asked = Date.now();
  const ack = await runner.cancel();
  assert.equal(ack.ok, true);
  const exit = await runner.finish(10_000);
  const took = Date.now() - asked;
  assert.ok(took < 5000, `cancel took ${took} ms`);
  assert.equal(exit.exitCode, 130);
  assert.equal(exit.end?.exit_reason, 'cancelled');
  const done = runner.sse.at(-1);
  assert.equal(done?.event, 'done');
  assert.equal(done?.data.exit_reason, 'cancelled');
  const result = runner.sse.find((m) => m.event === 'tool_end');
  assert.equal(result?.data.ok, false);
  assert.ok(!runner.sse.some((m) => m.event === 'tool_output' && m.data.data.includes('never')));
  checkAgainstJournal(runner.sse, env.journal('cancel-1'));
});

/**
 * The proxy dies mid-session; the next invocation re-attaches.
 *
 * Phase 1 runs the runner's command line as a child process with
 * `--detach` (the agent under `setsid -w` on the PTY) and SIGKILLs that
 * process while the agent's command waits for the file `go`: the PTY's
 * master side is closed by the kernel, as when a serverless invocation is
 * torn down. The agent, in a session of its own, gets no SIGHUP and goes
 * on. Phase 2 runs `agent attach --from-seq <last id the "browser" got>`
 * under a new PTY, sends an inject through it (attach's stdin -> the
 * control socket), releases the command, and reads to `done`. The two SSE
 * streams together must be the journal: every `_seq` once, none missing.
 * @param {string} name
 * @param {boolean} stderrOnPty
 */
function reattachScenario(name, stderrOnPty) {
  scenario(name, async () => {
    const env = await makeEnv('reattach');
    const sessionId = 'reattach-1';
    const script = await env.script([
      { text: 'Waiting for the file.', tool_calls: [{ name: 'exec', args: { command: GATED } }] },
      { text: 'Released, and I saw your message.' },
    ]);
    const go = join(env.work, 'go');
    cleanups.push(() => void writeFile(go, '').catch(() => {}));
    const stderrLog = join(env.root, 'agent-stderr.log');
    const cli = runCli(
      [
        'run',
        '--detach',
        ...(stderrOnPty ? [] : ['--stderr-log', stderrLog]),
        '--agent',
        AGENT,
        '--',
        '--script',
        script,
        '--prompt',
        'wait for go',
        '--session-id',
        sessionId,
        '--work-dir',
        env.work,
        '--config',
        env.config,
      ],
      env.env,
    );
    await cli.waitFor((m) => m.event === 'tool_output', 'the gated command through the first runner');
    cli.child.kill('SIGKILL');
    const killed = await within(cli.exited, WAIT_MS, 'the killed runner');
    assert.equal(killed.signal, 'SIGKILL');
    const first = [...cli.messages];
    const lastId = first.at(-1)?.id ?? 0;
    assert.ok(lastId > 0);
    // Had the agent been hung up, it would have ended cancelled within
    // milliseconds; it must still be waiting for `go`.
    await sleep(500);
    const meanwhile = env.journal(sessionId);
    assert.ok(
      !meanwhile.some((e) => e.type === 'session-end'),
      `the agent ended when its runner died:\n${JSON.stringify(meanwhile.at(-1))}`,
    );

    /** @type {string[]} */
    const log = [];
    const sink = textSink();
    const attached = track(attachAgent({ ...base(env, log), sessionId, fromSeq: lastId, sseOut: sink }));
    const ack = await attached.inject('sent after the reconnect');
    assert.equal(ack.ok, true, JSON.stringify(ack));
    await writeFile(go, '');
    const exit = await attached.finish(WAIT_MS);
    assert.equal(exit.exitCode, 0, `attach exit status\n${log.join('\n')}`);
    assert.deepEqual(attached.events.filter((e) => e._seq <= lastId), [], 'attach replays nothing already seen');
    assert.deepEqual(parseSse(sink.text), attached.sse, 'the SSE text is the messages');

    const combined = [...first, ...attached.sse];
    const ids = combined.map((m) => m.id);
    assert.equal(new Set(ids).size, ids.length, `no id twice: ${ids.join(',')}`);
    const journal = env.journal(sessionId);
    checkAgainstJournal(combined, journal);
    const done = combined.at(-1);
    assert.equal(done?.event, 'done');
    assert.equal(done?.data.exit_reason, 'completed');
    assert.ok(
      combined.some((m) => m.event === 'user_message' && m.data.source === 'inject' && m.data.text === 'sent after the reconnect'),
      'the inject through attach reached the agent',
    );
    assert.ok(
      attached.sse.some((m) => m.event === 'tool_output' && m.data.data === 'released\n'),
      'attach followed the live session',
    );
    assert.ok(!journal.some((e) => e.type === 'error'), `no error in the session: ${JSON.stringify(journal.filter((e) => e.type === 'error'))}`);
  });
}

reattachScenario('re-attach after the runner is killed mid-session', false);
reattachScenario("re-attach after the runner is killed, the agent's stderr on the dead PTY", true);

// ---------------------------------------------------------------------------

// Nothing may hang: a last resort over all scenarios.
const watchdog = setTimeout(
  () => {
    process.stderr.write('test.mjs: the whole run took too long\n');
    process.exit(1);
  },
  (scenarios.length * SCENARIO_MS) + 10_000,
);
watchdog.unref();

const only = process.env.RUNNER_TEST_ONLY;
let failed = 0;
for (const [name, body] of scenarios) {
  if (only && !name.includes(only)) continue;
  const started = Date.now();
  cleanups = [];
  try {
    await within(body(), SCENARIO_MS, name);
    process.stdout.write(`ok   ${name} (${Date.now() - started} ms)\n`);
  } catch (err) {
    failed++;
    process.stdout.write(`FAIL ${name} (${Date.now() - started} ms)\n${/** @type {Error} */ (err).stack ?? err}\n`);
  } finally {
    for (const cleanup of cleanups) {
      try {
        cleanup();
      } catch {
        // best effort
      }
    }
  }
}
process.stdout.write(failed ? `${failed} scenario(s) failed\n` : 'all scenarios passed\n');
// Temp folders are left for a failed run to be inspected; removed otherwise.
if (failed) {
  process.stdout.write(`temp folders kept: ${roots.join(' ')}\n`);
} else {
  // A detached agent may still be writing its last checkpoint; give it a moment.
  await sleep(200);
  for (const root of roots) await rm(root, { recursive: true, force: true }).catch(() => {});
}
process.stdout.write('', () => process.exit(failed ? 1 : 0));
