#!/usr/bin/env node
// @ts-check
// The reference runner: what INTEGRATION-PLAN.md says a proxy does, in one
// small file. It opens a real PTY on an interactive shell, as a sandbox
// provider's PTY API does, types `cd DIR && exec agent ...` (or `agent
// attach`), cuts the PTY's output into event lines, turns each event into
// the front end's SSE message, answers people-in-the-loop requests and
// writes commands (inject, cancel, rollback) back to the PTY.
//
// Use it as a library (`import { startAgent, attachAgent } from
// './runner.mjs'`) or as a command line tool (`node runner.mjs --help`).
// Plain JavaScript with JSDoc types: Node 20, no build step, one dependency
// (node-pty).

import { EventEmitter } from 'node:events';
import { realpathSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import pty from 'node-pty';

// The wire types come from protocol.d.ts, generated from the agent's own
// types (docs/protocol.md, "The protocol as data"); `npm run typecheck`
// checks this file against them. In an ES module TypeScript names
// protocol.d.ts `./protocol.js`.

/**
 * An event line of the agent, parsed: `type`, `_seq`, `ts` and the fields
 * of its type.
 * @typedef {import('./protocol.js').Event} AgentEvent
 */

/**
 * The event of one type: `EventOf<'session-end'>`.
 * @template {AgentEvent['type']} T
 * @typedef {Extract<AgentEvent, {type: T}>} EventOf
 */

/**
 * A command line for the agent's stdin.
 * @typedef {import('./protocol.js').Command} AgentCommand
 */

/** @typedef {EventOf<'command-ack'>} CommandAck */
/** @typedef {EventOf<'hitl-request'>} HitlRequest */
/** @typedef {import('./protocol.js').Decision} Decision */

/**
 * One message for the browser's EventSource.
 * @typedef {{id: number, event: string, data: any}} SseMessage
 */

/**
 * What a needs-input policy may answer: nothing (leave the request to
 * another channel: a later invocation, the hitl dir, the deadline), a
 * `hitl-response` body, or `{type: 'confirm-plan'}` for a plan.
 * @typedef {undefined | null | {decision: Decision, data?: object} | {type: 'confirm-plan'}} HitlAnswer
 */

/**
 * @callback NeedsInputPolicy
 * @param {HitlRequest} request the `hitl-request` event (kind, question, options, content, action, reason, ...)
 * @param {AgentRunner} runner
 * @returns {HitlAnswer | Promise<HitlAnswer>}
 */

// ---------------------------------------------------------------------------
// Reading the PTY: lines

/**
 * Cuts PTY output into lines, as INTEGRATION-PLAN.md says: split on `\n`,
 * trim, skip empty lines. Reads return arbitrary chunks: only complete lines
 * come out, the rest waits for the next chunk. Trimming takes the `\r` of
 * the PTY's `\r\n` away.
 */
export class LineSplitter {
  constructor() {
    /** @type {string} */
    this.pending = '';
  }

  /**
   * @param {string} chunk
   * @returns {string[]} the lines this chunk completed
   */
  push(chunk) {
    this.pending += chunk;
    const lines = [];
    let start = 0;
    for (;;) {
      const end = this.pending.indexOf('\n', start);
      if (end < 0) break;
      const line = this.pending.slice(start, end).trim();
      if (line !== '') lines.push(line);
      start = end + 1;
    }
    this.pending = this.pending.slice(start);
    return lines;
  }

  /** @returns {string[]} what is left once the stream ended (a last line without `\n`) */
  flush() {
    const rest = this.pending.trim();
    this.pending = '';
    return rest === '' ? [] : [rest];
  }
}

/**
 * Parses one line. A line that is not a JSON object with a `type` and a
 * `_seq` is not an event: the shell's prompt and its echo of the typed line
 * before the agent starts, a command echoed back because it was written
 * before the agent turned echo off (JSON, but no `_seq`), or the agent's
 * stderr, which the PTY merges into the stream. The caller logs it and goes
 * on.
 * @param {string} line
 * @returns {AgentEvent | null}
 */
export function parseEventLine(line) {
  let value;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  if (typeof value.type !== 'string' || !Number.isInteger(value._seq)) return null;
  return value;
}

// ---------------------------------------------------------------------------
// Events to SSE (the table in INTEGRATION-PLAN.md)

/**
 * Some fields of an event; a field its type does not have is a type error.
 * @template {AgentEvent} E
 * @param {Array<Exclude<keyof E, 'type' | '_seq' | 'ts'>>} fields
 * @returns {(event: E) => Partial<E>}
 */
const pick = (fields) => (event) => {
  /** @type {Partial<E>} */
  const data = {};
  for (const field of fields) {
    if (event[field] !== undefined) data[field] = event[field];
  }
  return data;
};

/**
 * agent event type -> [SSE event name, what the front end gets]. Only the
 * fields the table lists go to the browser: `checkpoint-saved`'s
 * `checkpoint` is a sandbox path and stays server-side (see
 * {@link AgentRunner#lastCheckpoint}). Every type of protocol.d.ts but
 * those in {@link NOT_FORWARDED} has its entry, or the type check fails.
 * @type {{[T in Exclude<AgentEvent['type'], 'command-ack'>]: [string, (event: EventOf<T>) => object]}}
 */
export const SSE_MAP = {
  'session-start': ['session', pick(['session_id', 'model', 'mode', 'tools', 'resumed'])],
  'tools-changed': ['tools', pick(['tools', 'added', 'removed'])],
  'user-message': ['user_message', pick(['text', 'source'])],
  'text-delta': ['assistant_delta', pick(['delta', 'iteration'])],
  'reasoning-delta': ['reasoning_delta', pick(['delta', 'iteration'])],
  activity: ['activity', pick(['activity', 'tool_call_id'])],
  'tool-call-start': ['tool_start', pick(['id', 'name', 'args', 'iteration'])],
  'exec-log': ['tool_output', pick(['id', 'stream', 'data'])],
  'file-delta': ['file_stream', pick(['id', 'path', 'delta'])],
  'file-complete': ['file_changed', pick(['id', 'path', 'op', 'bytes', 'diff'])],
  'tool-result': ['tool_end', pick(['id', 'name', 'ok', 'output', 'truncated', 'duration_ms'])],
  'todos-update': ['todos', pick(['todos'])],
  'hitl-request': [
    'needs_input',
    pick(['id', 'kind', 'question', 'options', 'content', 'action', 'reason', 'deadline', 'default_decision']),
  ],
  'hitl-resolved': ['input_resolved', pick(['id', 'decision', 'by'])],
  'plan-confirmed': ['plan_confirmed', pick(['plan'])],
  'mode-changed': ['mode', pick(['from', 'to'])],
  'usage-update': [
    'usage',
    pick([
      'input_tokens',
      'output_tokens',
      'cached_input_tokens',
      'reasoning_tokens',
      'total_input_tokens',
      'total_output_tokens',
    ]),
  ],
  'checkpoint-saved': ['checkpoint', pick(['iteration', 'files_changed'])],
  'checkpoint-restored': ['restored', pick(['iteration'])],
  summarizing: ['compacting', pick(['tokens_before'])],
  summarized: ['compacting', pick(['tokens_before', 'tokens_after'])],
  error: ['error', pick(['code', 'message', 'fatal', 'attempt'])],
  'session-end': [
    'done',
    (event) => ({
      exit_reason: event.exit_reason,
      iterations: event.iterations,
      duration_ms: event.duration_ms,
      totals: {
        input_tokens: event.total_input_tokens,
        output_tokens: event.total_output_tokens,
        cached_input_tokens: event.total_cached_input_tokens,
        reasoning_tokens: event.total_reasoning_tokens,
      },
    }),
  ],
};

/** Event types the browser never sees: the proxy answers the POST with them. */
export const NOT_FORWARDED = new Set(['command-ack']);

/**
 * The SSE message for an event, or null for one that is not forwarded
 * (`command-ack`). An unknown type (from a later agent) goes out as
 * `event: agent` with the raw object, so it is never dropped.
 * @param {AgentEvent} event
 * @returns {SseMessage | null}
 */
export function toSse(event) {
  if (NOT_FORWARDED.has(event.type)) return null;
  // Each entry takes the event of the type it is looked up by.
  const mapping = /** @type {Partial<Record<string, [string, (event: any) => object]>>} */ (SSE_MAP)[event.type];
  if (!mapping) return { id: event._seq, event: 'agent', data: event };
  const [name, data] = mapping;
  return { id: event._seq, event: name, data: data(event) };
}

/**
 * The text of one SSE message. `data` is one line of JSON, so it needs one
 * `data:` field.
 * @param {SseMessage} message
 * @returns {string}
 */
export function formatSse(message) {
  return `id: ${message.id}\nevent: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`;
}

/**
 * Parses SSE text back into messages (for tests and for a client written in
 * Node). Handles `id`, `event` and (joined) `data` fields.
 * @param {string} text
 * @returns {SseMessage[]}
 */
export function parseSse(text) {
  /** @type {SseMessage[]} */
  const messages = [];
  for (const block of text.split('\n\n')) {
    if (block.trim() === '') continue;
    /** @type {{id?: number, event?: string, data: string[]}} */
    const fields = { data: [] };
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (name === 'id') fields.id = Number(value);
      else if (name === 'event') fields.event = value;
      else if (name === 'data') fields.data.push(value);
    }
    messages.push({
      id: /** @type {number} */ (fields.id),
      event: fields.event ?? 'message',
      data: JSON.parse(fields.data.join('\n')),
    });
  }
  return messages;
}

// ---------------------------------------------------------------------------
// Needs-input policies

/** Ready-made policies for {@link RunnerOptions.onNeedsInput}. */
export const policies = {
  /**
   * Answers every question with `answer`, approves every action and every
   * plan. For tests and unattended demos only: a proxy shows the dialog.
   * @param {string} answer
   * @returns {NeedsInputPolicy}
   */
  approveAll(answer = 'yes') {
    return (request) => {
      if (request.kind === 'plan') return { type: 'confirm-plan' };
      if (request.kind === 'ask-user') return { decision: 'approve', data: { answer } };
      return { decision: 'approve' };
    };
  },
  /**
   * Declines every question, refuses every action and plan.
   * @param {string} reason
   * @returns {NeedsInputPolicy}
   */
  rejectAll(reason = 'refused by the runner') {
    return (request) => {
      if (request.kind === 'plan') return { decision: 'reject', data: { feedback: reason } };
      if (request.kind === 'approval') return { decision: 'reject', data: { reason } };
      return { decision: 'reject' };
    };
  },
};

/**
 * Answers a request through `--hitl-dir` instead of the PTY, as a later
 * invocation without a live connection does: the same object as the stdin
 * line, written to a temp file and renamed, so the agent never reads half
 * of it. Characters of the id other than letters, digits, `-` and `_`
 * become `_` in the file name.
 * @param {string} hitlDir
 * @param {string} id
 * @param {{decision: Decision, data?: object}} answer
 */
export async function answerByFile(hitlDir, id, answer) {
  const safe = id.replace(/[^A-Za-z0-9_-]/g, '_');
  const final = join(hitlDir, `${safe}.response.json`);
  const temp = join(hitlDir, `.${safe}.response.json.${process.pid}.tmp`);
  await writeFile(temp, JSON.stringify({ type: 'hitl-response', id, ...answer }), { mode: 0o600 });
  await rename(temp, final);
}

// ---------------------------------------------------------------------------
// The runner

/**
 * @typedef {object} RunnerOptions
 * @property {string} [agent] the agent binary (default `$AGENT_BIN`, else `agent` on PATH)
 * @property {Record<string, string | undefined>} [env] the environment (default this process's)
 * @property {string} [apiUrl] sets `AGENT_API_URL` (the proxy's `/v1`)
 * @property {string} [apiKey] sets `AGENT_API_KEY` (the per-session token)
 * @property {string} [stateDir] sets `AGENT_STATE_DIR`
 * @property {string} [cwd] the folder the typed line `cd`s into (default this process's)
 * @property {string[]} [shell] the shell the PTY runs, with its arguments
 *   (default {@link DEFAULT_SHELL})
 * @property {boolean} [detach] start the agent in a session of its own
 *   (`setsid -w`), so that closing the PTY (the runner dying) does not send it
 *   SIGHUP, which is a cancel. `agent attach` then picks the session up.
 * @property {string} [stderrLog] the agent's stderr goes to this file
 *   instead of the PTY; meant for `detach` (once the runner is gone nobody
 *   reads the PTY, so diagnostics written after that would be lost anyway)
 * @property {boolean} [waitForStart] hold commands back until the first
 *   event (`session-start`) has come: before it, the terminal may still echo
 *   them (default true; `attachAgent` has no such event to wait for)
 * @property {NeedsInputPolicy} [onNeedsInput] answers `hitl-request`s
 * @property {import('node:stream').Writable} [sseOut] SSE text goes here
 * @property {(message: string) => void} [log] diagnostics (default: stderr)
 * @property {number} [lastSeq] events with `_seq` up to this are dropped (attach)
 */

/**
 * @typedef {object} StartOptions
 * @property {string} prompt
 * @property {string} [script] the scripted model's file (instead of `apiUrl`)
 * @property {string} [model]
 * @property {'normal'|'plan'|'implement'} [mode]
 * @property {string} [sessionId]
 * @property {string} [workDir]
 * @property {string} [hitlDir]
 * @property {string} [config]
 * @property {string} [restoreCheckpoint]
 * @property {string[]} [blockedTools]
 * @property {number} [maxIterations]
 * @property {string[]} [args] more agent flags, appended as they are
 */

/**
 * @typedef {object} RunnerExit
 * @property {number} exitCode the agent's (or attach's) exit status
 * @property {number | undefined} signal
 * @property {number} lastSeq the last `_seq` seen
 * @property {EventOf<'session-end'> | undefined} end the `session-end` event, if one came
 */

/**
 * One agent process (or `agent attach`) under a PTY.
 *
 * Emits `event` (each parsed event, raw), `sse` (each SSE message),
 * `ack` (each `command-ack`), `noise` (a line before the first event: the
 * shell's prompt, its echo of the typed line), `garbage` (a line after it
 * that is not an event), `gap` ({expected, got}), and `exit`
 * ({@link RunnerExit}).
 */
export class AgentRunner extends EventEmitter {
  /**
   * Opens a PTY on the shell and types `cd CWD && exec FILE ARGS...`.
   * @param {string} file
   * @param {string[]} args
   * @param {RunnerOptions} options
   */
  constructor(file, args, options) {
    super();
    this.options = options;
    /** The last `_seq` seen (the browser's `Last-Event-ID` after a reconnect). */
    this.lastSeq = options.lastSeq ?? 0;
    /** @type {string | undefined} the newest `checkpoint-saved` path: `--restore-checkpoint` of the next turn */
    this.lastCheckpoint = undefined;
    /** @type {string | undefined} */
    this.sessionId = undefined;
    /** @type {AgentEvent[]} */
    this.events = [];
    /** @type {SseMessage[]} */
    this.sse = [];
    /** @type {Array<{resolve: (ack: CommandAck) => void, reject: (err: Error) => void, command: string}>} */
    this.waitingAcks = [];
    this.exited = false;
    this.log = options.log ?? ((message) => process.stderr.write(`runner: ${message}\n`));
    this.splitter = new LineSplitter();
    this.sawEvent = false;
    /** @type {() => void} */
    let started = () => {};
    /** @type {Promise<void>} settles with the first event, or at once when not waiting for it */
    this.started =
      options.waitForStart === false
        ? Promise.resolve()
        : new Promise((resolve) => {
            started = resolve;
          });
    this.markStarted = started;

    const cwd = options.cwd ?? process.cwd();
    const launch = launchLine(file, args, { ...options, cwd });
    const [shell, ...shellArgs] = options.shell ?? DEFAULT_SHELL;
    this.pty = pty.spawn(shell, shellArgs, {
      name: 'xterm',
      cols: 200,
      rows: 50,
      cwd,
      env: { .../** @type {Record<string, string>} */ (options.env), ...launch.env },
    });
    this.pid = this.pty.pid;
    this.pty.onData((chunk) => {
      for (const line of this.splitter.push(chunk)) this.handleLine(line);
    });
    // Typed at once, as the plan's proxy does: a shell that is not reading
    // yet still gets it (the terminal holds it), which is why the line is
    // kept short.
    this.pty.write(launch.line);
    /** @type {Promise<RunnerExit>} resolves once the process exited and its output was read */
    this.done = new Promise((resolve) => {
      this.pty.onExit(({ exitCode, signal }) => {
        for (const line of this.splitter.flush()) this.handleLine(line);
        this.exited = true;
        this.markStarted();
        for (const waiting of this.waitingAcks.splice(0)) {
          waiting.reject(new Error(`the process exited before the ack of ${waiting.command}`));
        }
        const exit = {
          exitCode,
          signal: signal || undefined,
          lastSeq: this.lastSeq,
          end: this.events.find((event) => event.type === 'session-end'),
        };
        this.emit('exit', exit);
        resolve(exit);
      });
    });
  }

  /** @param {string} line */
  handleLine(line) {
    const event = parseEventLine(line);
    if (!event) {
      if (!this.sawEvent) {
        // The shell's prompt and its echo of the typed line: expected.
        this.emit('noise', line);
        return;
      }
      // A bug (stderr merged into the PTY, a line cut in transit): never
      // fatal for the stream.
      this.log(`not an event line, skipped: ${line.slice(0, 200)}`);
      this.emit('garbage', line);
      return;
    }
    if (!this.sawEvent) {
      this.sawEvent = true;
      this.markStarted();
      if (this.options.waitForStart !== false && event.type !== 'session-start') {
        this.log(`the first event is ${event.type} (_seq ${event._seq}), not session-start: lines were lost`);
      }
    }
    // attach prints only `_seq` > --from-seq; this guards against a replay
    // overlapping what was already forwarded.
    if (event._seq <= this.lastSeq) return;
    if (event._seq !== this.lastSeq + 1 && this.lastSeq !== 0) {
      // Lines were lost in transit: re-attach from lastSeq to get them.
      this.log(`gap in _seq: expected ${this.lastSeq + 1}, got ${event._seq}`);
      this.emit('gap', { expected: this.lastSeq + 1, got: event._seq });
    }
    this.lastSeq = event._seq;
    this.events.push(event);
    if (event.type === 'session-start') this.sessionId = event.session_id;
    if (event.type === 'checkpoint-saved') this.lastCheckpoint = event.checkpoint;
    if (event.type === 'command-ack') {
      // Acks come in the order the lines were written.
      const waiting = this.waitingAcks.shift();
      if (waiting) waiting.resolve(event);
      this.emit('ack', event);
    }
    this.emit('event', event);
    const message = toSse(event);
    if (message) {
      this.sse.push(message);
      this.options.sseOut?.write(formatSse(message));
      this.emit('sse', message);
    }
    if (event.type === 'hitl-request' && this.options.onNeedsInput) {
      this.answerNeedsInput(event, this.options.onNeedsInput);
    }
  }

  /**
   * @param {HitlRequest} request
   * @param {NeedsInputPolicy} policy
   */
  async answerNeedsInput(request, policy) {
    try {
      const answer = await policy(request, this);
      if (!answer) return;
      const ack =
        'type' in answer && answer.type === 'confirm-plan'
          ? await this.confirmPlan()
          : await this.answer(request.id, /** @type {{decision: Decision, data?: object}} */ (answer));
      if (!ack.ok) this.log(`answer to ${request.id} refused: ${ack.reason}`);
    } catch (err) {
      this.log(`answering ${request.id} failed: ${/** @type {Error} */ (err).message}`);
    }
  }

  /**
   * Writes one command line to the PTY and waits for its `command-ack`
   * (the proxy answers the browser's POST with it).
   * @param {AgentCommand} command
   * @param {number} [timeoutMs]
   * @returns {Promise<CommandAck>} the ack (`ok`, `reason`)
   */
  send(command, timeoutMs = 10_000) {
    if (this.exited) return Promise.reject(new Error('the process has exited'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.waitingAcks.indexOf(entry);
        if (index >= 0) this.waitingAcks.splice(index, 1);
        reject(new Error(`no command-ack for ${command.type} within ${timeoutMs} ms`));
      }, timeoutMs);
      const entry = {
        command: command.type,
        /** @param {CommandAck} ack */
        resolve: (ack) => {
          clearTimeout(timer);
          resolve(ack);
        },
        /** @param {Error} err */
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      this.waitingAcks.push(entry);
      // One line: JSON.stringify escapes every newline inside strings.
      const line = `${JSON.stringify(command)}\n`;
      // Written in call order once the agent has started, so the acks
      // still come in the order of `waitingAcks`.
      this.started.then(() => {
        // Not once its wait timed out: its ack would answer the next one.
        if (!this.exited && this.waitingAcks.includes(entry)) this.pty.write(line);
      });
    });
  }

  /** @param {string} text a new message while the agent works */
  inject(text) {
    return this.send({ type: 'inject', text });
  }

  /** Stop: the session ends within 2 s with `exit_reason: "cancelled"`. */
  cancel() {
    return this.send({ type: 'cancel' });
  }

  /**
   * Answers a `needs_input`: a question, an approval or a plan.
   * @param {string} id the request's id
   * @param {{decision: Decision, data?: object}} answer
   */
  answer(id, answer) {
    return this.send({ type: 'hitl-response', id, decision: answer.decision, ...(answer.data ? { data: answer.data } : {}) });
  }

  confirmPlan() {
    return this.send({ type: 'confirm-plan' });
  }

  /** @param {number} iteration undo to this checkpoint (the process ends, exit 4) */
  rollback(iteration) {
    return this.send({ type: 'rollback', iteration });
  }

  /**
   * Resolves with the first event (already seen or still to come) that
   * matches, or rejects after `timeoutMs`.
   * @param {(event: AgentEvent) => boolean} predicate
   * @param {number} [timeoutMs]
   * @param {string} [what]
   * @returns {Promise<AgentEvent>}
   */
  waitFor(predicate, timeoutMs = 20_000, what = 'an event') {
    const seen = this.events.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      /** @param {AgentEvent} event */
      const onEvent = (event) => {
        if (!predicate(event)) return;
        cleanup();
        resolve(event);
      };
      const onExit = () => {
        cleanup();
        reject(new Error(`the process exited before ${what}`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.off('event', onEvent);
        this.off('exit', onExit);
      };
      this.on('event', onEvent);
      this.on('exit', onExit);
    });
  }

  /**
   * Waits for the exit, at most `timeoutMs`; kills the process after that.
   * @param {number} [timeoutMs]
   * @returns {Promise<RunnerExit>}
   */
  async finish(timeoutMs = 30_000) {
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => {
        this.kill('SIGKILL');
        reject(new Error(`the process did not exit within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.done, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Drops the connection as a dying proxy would: the PTY is closed without
   * waiting. Without `detach` that hangs the agent up (SIGHUP = cancel);
   * with `detach` the agent goes on and `attachAgent` picks it up.
   */
  abandon() {
    // node-pty's typings leave out destroy(), which its Unix terminal has.
    /** @type {import('node-pty').IPty & {destroy(): void}} */ (this.pty).destroy();
  }

  /** @param {string} [signal] sent to the process on the PTY (the `setsid` wrapper with `detach`) */
  kill(signal = 'SIGTERM') {
    this.pty.kill(signal);
  }
}

/**
 * @param {RunnerOptions} options
 * @returns {Record<string, string>}
 */
function buildEnv(options) {
  /** @type {Record<string, string>} */
  const env = {};
  for (const [name, value] of Object.entries(options.env ?? process.env)) {
    if (value !== undefined) env[name] = value;
  }
  if (options.apiUrl !== undefined) env.AGENT_API_URL = options.apiUrl;
  if (options.apiKey !== undefined) env.AGENT_API_KEY = options.apiKey;
  if (options.stateDir !== undefined) env.AGENT_STATE_DIR = options.stateDir;
  return env;
}

// ---------------------------------------------------------------------------
// The launch line

/**
 * The shell on the PTY when none is given. A sandbox provider's PTY runs the
 * sandbox user's shell; here its rc files are left out, so that only its
 * prompt and its echo of the typed line come before the agent.
 */
export const DEFAULT_SHELL = ['bash', '--noprofile', '--norc', '-i'];

/** An argument longer than this (or with a control character) goes through the environment. */
const TYPED_ARG_MAX = 128;

/**
 * A terminal in canonical mode keeps at most 4095 bytes of a line, and the
 * shell may not be reading yet (in raw mode, with no such limit) when the
 * line arrives: a longer line is cut and the shell waits forever.
 */
const TYPED_LINE_MAX = 4000;

/**
 * One word for a POSIX shell.
 * @param {string} word
 */
export function shellQuote(word) {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The line typed into the shell: `cd CWD && exec FILE ARGS... || exit`, as
 * INTEGRATION-PLAN.md's "Launching" says. `exec` makes the agent the PTY's
 * process, so the PTY ends with it and carries its exit status. A long
 * argument (the prompt) is passed as `"$AGENT_RUNNER_ARG_<n>"` and its value
 * through the PTY's environment: the line stays short, and the terminal
 * does not echo the text back.
 *
 * With `detach`, `setsid -w` (util-linux) runs the agent in a new session:
 * the PTY stays its stdin, stdout and stderr, but it is no longer the
 * agent's controlling terminal. When the PTY's master side is closed (the
 * runner, that is the proxy invocation, dies), the kernel hangs up the
 * terminal's session, which holds only the `setsid` wrapper; the agent gets
 * no SIGHUP (which it would treat as a cancel), its writes to the dead PTY
 * fail, it stops writing to stdout and goes on, every line still going to
 * its journal. `-w` makes the wrapper wait and exit with the agent's status,
 * so a live runner still sees the real exit code.
 * @param {string} file
 * @param {string[]} args
 * @param {{cwd: string, detach?: boolean, stderrLog?: string}} options
 * @returns {{line: string, env: Record<string, string>}}
 */
export function launchLine(file, args, options) {
  /** @type {Record<string, string>} */
  const env = {};
  const words = args.map((arg, index) => {
    if (Buffer.byteLength(arg) <= TYPED_ARG_MAX && !/[\x00-\x1f\x7f]/.test(arg)) return shellQuote(arg);
    const name = `AGENT_RUNNER_ARG_${index}`;
    env[name] = arg;
    return `"$${name}"`;
  });
  const program = options.detach ? ['setsid', '-w', shellQuote(file)] : [shellQuote(file)];
  const redirect = options.stderrLog ? ` 2>>${shellQuote(options.stderrLog)}` : '';
  // `|| exit`: a failed `cd` or a missing binary ends the shell with that
  // status instead of leaving it at its prompt.
  const line = `cd ${shellQuote(options.cwd)} && exec ${[...program, ...words].join(' ')}${redirect} || exit\n`;
  if (Buffer.byteLength(line) > TYPED_LINE_MAX) {
    throw new Error(`the launch line is ${Buffer.byteLength(line)} bytes, over ${TYPED_LINE_MAX}`);
  }
  return { line, env };
}

/**
 * Starts one user turn, as "Launching" in INTEGRATION-PLAN.md says.
 * @param {StartOptions & RunnerOptions} options
 * @returns {AgentRunner}
 */
export function startAgent(options) {
  const agent = options.agent ?? process.env.AGENT_BIN ?? 'agent';
  // With `=`: a message that starts with `-` is not taken for a flag.
  const args = [`--prompt=${options.prompt}`];
  if (options.script) args.push('--script', options.script);
  if (options.model) args.push('--model', options.model);
  if (options.mode) args.push('--mode', options.mode);
  if (options.sessionId) args.push('--session-id', options.sessionId);
  if (options.workDir) args.push('--work-dir', options.workDir);
  if (options.hitlDir) args.push('--hitl-dir', options.hitlDir);
  if (options.config) args.push('--config', options.config);
  if (options.restoreCheckpoint) args.push('--restore-checkpoint', options.restoreCheckpoint);
  if (options.blockedTools?.length) args.push('--blocked-tools', options.blockedTools.join(','));
  if (options.maxIterations) args.push('--max-iterations', String(options.maxIterations));
  args.push(...(options.args ?? []));
  return new AgentRunner(agent, args, { ...options, env: buildEnv(options) });
}

/**
 * Picks a running (or finished) session up after the invocation that
 * started it died: `agent attach --session-id ID --from-seq N` under a PTY.
 * It prints the journal after `fromSeq` (the browser's `Last-Event-ID`),
 * then follows the live session to `session-end`; commands written to it
 * reach the agent through its control socket. Exit 1 means the agent died:
 * start a new process with `--restore-checkpoint`.
 * @param {{sessionId: string, fromSeq: number} & RunnerOptions} options
 * @returns {AgentRunner}
 */
export function attachAgent(options) {
  const agent = options.agent ?? process.env.AGENT_BIN ?? 'agent';
  const args = ['attach', '--session-id', options.sessionId, '--from-seq', String(options.fromSeq)];
  return new AgentRunner(agent, args, {
    ...options,
    detach: false,
    // Nothing marks the moment attach turned echo off (it may have nothing
    // to replay): a command written before is echoed back once (JSON
    // without `_seq`, not an event) and still delivered.
    waitForStart: false,
    lastSeq: options.fromSeq,
    env: buildEnv(options),
  });
}

// ---------------------------------------------------------------------------
// Command line

const USAGE = `usage:
  node runner.mjs run [RUNNER OPTIONS] -- AGENT FLAGS...
  node runner.mjs attach --session-id ID --from-seq N [RUNNER OPTIONS]

Opens a PTY on an interactive bash, types 'cd DIR && exec agent ...' (run)
or 'exec agent attach ...' (attach) into it and writes the front end's SSE
messages to stdout. Each line on stdin is a JSON command
({"type":"inject","text":"..."}, {"type":"cancel"}, a hitl-response, ...)
written to the PTY; its command-ack is logged on stderr. The exit status is
the agent's (or attach's).

runner options:
  --agent PATH         the agent binary (default $AGENT_BIN, else 'agent')
  --detach             run the agent in its own session (setsid), so that it
                       outlives this process; pick it up with 'attach'
  --stderr-log FILE    with --detach: the agent's stderr goes to FILE
  --answer TEXT        answer every ask-user question with TEXT
  --approve            approve every approval request
  --confirm-plan       approve every plan
  --reject             decline or refuse every request not covered above
  --quiet              log nothing on stderr

The model endpoint comes from the environment (AGENT_API_URL, AGENT_API_KEY)
or from '--script FILE' among the agent flags; AGENT_STATE_DIR as usual.
`;

/**
 * @param {string[]} argv
 */
function parseCli(argv) {
  const [mode, ...rest] = argv;
  if (mode !== 'run' && mode !== 'attach') return null;
  /** @type {{mode: string, agent?: string, detach: boolean, stderrLog?: string, answer?: string, approve: boolean, confirmPlan: boolean, reject: boolean, quiet: boolean, sessionId?: string, fromSeq?: number, agentArgs: string[]}} */
  const cli = { mode, detach: false, approve: false, confirmPlan: false, reject: false, quiet: false, agentArgs: [] };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const value = () => {
      const next = rest[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--') {
      cli.agentArgs = rest.slice(i + 1);
      break;
    } else if (arg === '--agent') cli.agent = value();
    else if (arg === '--detach') cli.detach = true;
    else if (arg === '--stderr-log') cli.stderrLog = value();
    else if (arg === '--answer') cli.answer = value();
    else if (arg === '--approve') cli.approve = true;
    else if (arg === '--confirm-plan') cli.confirmPlan = true;
    else if (arg === '--reject') cli.reject = true;
    else if (arg === '--quiet') cli.quiet = true;
    else if (arg === '--session-id' && mode === 'attach') cli.sessionId = value();
    else if (arg === '--from-seq' && mode === 'attach') cli.fromSeq = Number(value());
    else throw new Error(`unknown option ${arg}`);
  }
  if (mode === 'attach' && (!cli.sessionId || !Number.isInteger(cli.fromSeq))) {
    throw new Error('attach needs --session-id and --from-seq');
  }
  if (mode === 'run' && cli.agentArgs.length === 0) throw new Error('run needs the agent flags after --');
  return cli;
}

/**
 * @param {string[]} argv
 * @returns {Promise<number>} the exit status
 */
export async function main(argv) {
  let cli;
  try {
    cli = parseCli(argv);
  } catch (err) {
    process.stderr.write(`runner: ${/** @type {Error} */ (err).message}\n${USAGE}`);
    return 2;
  }
  if (!cli) {
    const help = argv[0] === '--help' || argv[0] === '-h';
    (help ? process.stdout : process.stderr).write(USAGE);
    return help ? 0 : 2;
  }
  const log = cli.quiet ? () => {} : (/** @type {string} */ message) => process.stderr.write(`runner: ${message}\n`);
  /** @type {NeedsInputPolicy} */
  const onNeedsInput = (request) => {
    if (request.kind === 'ask-user' && cli.answer !== undefined) {
      return { decision: 'approve', data: { answer: cli.answer } };
    }
    if (request.kind === 'approval' && cli.approve) return { decision: 'approve' };
    if (request.kind === 'plan' && cli.confirmPlan) return { type: 'confirm-plan' };
    if (cli.reject) return policies.rejectAll()(request, runner);
    return undefined;
  };
  /** @type {RunnerOptions} */
  const common = { agent: cli.agent, sseOut: process.stdout, log, onNeedsInput };
  /** @type {AgentRunner} */
  let runner;
  if (cli.mode === 'run') {
    // The agent flags go as they are; startAgent's structured options are
    // for library use.
    const agent = cli.agent ?? process.env.AGENT_BIN ?? 'agent';
    runner = new AgentRunner(agent, cli.agentArgs, {
      ...common,
      detach: cli.detach,
      stderrLog: cli.stderrLog,
      env: buildEnv({}),
    });
  } else {
    runner = attachAgent({
      ...common,
      sessionId: /** @type {string} */ (cli.sessionId),
      fromSeq: /** @type {number} */ (cli.fromSeq),
    });
  }
  runner.on('ack', (ack) => log(`command-ack ${JSON.stringify(ack)}`));
  const input = createInterface({ input: process.stdin });
  input.on('line', (line) => {
    if (line.trim() === '') return;
    let command;
    try {
      command = JSON.parse(line);
    } catch {
      log(`stdin line is not JSON, not sent: ${line.slice(0, 200)}`);
      return;
    }
    runner.send(command).catch((err) => log(err.message));
  });
  const exit = await runner.done;
  input.close();
  process.stdin.destroy();
  log(`${cli.mode === 'run' ? 'agent' : 'attach'} exited with ${exit.exitCode}${exit.signal ? ` (signal ${exit.signal})` : ''}, last _seq ${exit.lastSeq}`);
  return exit.exitCode;
}

/** @param {string} path */
const real = (path) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

if (process.argv[1] && real(fileURLToPath(import.meta.url)) === real(process.argv[1])) {
  const code = await main(process.argv.slice(2));
  // Let stdout drain before exiting.
  process.stdout.write('', () => process.exit(code));
}
