import { readFileSync } from 'node:fs';

import { kindOf, PayloadError } from '../payload.js';
import type { CodeGraderInput, Message, TraceSummary } from './types.js';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * snake_case → camelCase as AgentV 4.x renames payload keys: every `_x` (x a lowercase letter or
 * digit) becomes `X`; a key that starts with an uppercase letter is a proper name and stays.
 */
export function camel4(key: string): string {
  if (/^[A-Z]/.test(key)) return key;
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

// Objects whose keys are tool names (data, not field names): their keys keep their spelling.
const toolNameMaps = new Set(['toolCalls', 'toolCallsByName', 'toolDurations']);

/** Renames every key below v with camel4, except the tool names of the trace summary maps. */
export function camelDeep(v: unknown, keepKeys = false): unknown {
  if (Array.isArray(v)) return v.map((x) => camelDeep(x));
  if (!isObject(v)) return v;
  const out: Obj = {};
  for (const [k, val] of Object.entries(v)) {
    const key = keepKeys ? k : camel4(k);
    out[key] = camelDeep(val, !keepKeys && toolNameMaps.has(key) && isObject(val));
  }
  return out;
}

const orNull = <T>(v: unknown): T | null => (v === undefined ? null : (v as T));

function messages(v: unknown, field: string): Message[] | undefined {
  if (v == null) return undefined;
  if (!Array.isArray(v)) throw new PayloadError(`invalid payload: ${field} must be an array of messages, got ${kindOf(v)}`);
  v.forEach((m, i) => {
    if (!isObject(m)) throw new PayloadError(`invalid payload: ${field}[${i}] must be a message object, got ${kindOf(m)}`);
  });
  return v as Message[];
}

function text(v: unknown, field: string): string | undefined {
  if (v == null) return undefined;
  if (typeof v !== 'string') throw new PayloadError(`invalid payload: ${field} must be a string, got ${kindOf(v)}`);
  return v;
}

/**
 * Turns a parsed payload into the handler context. agentv's payload carries the AgentV 4.x names
 * (`output`, `criteria`, `messages`, `token_usage`, ...) and the older ones (`candidate_answer`,
 * `expected_outcome`, `output_messages`, `trace_summary.token_usage`, ...); a 4.x name that is
 * missing is filled from its older counterpart, so handlers see the 4.x shape either way.
 */
export function toGraderInput(raw: unknown): CodeGraderInput {
  if (!isObject(raw)) throw new PayloadError(`invalid payload: expected a JSON object, got ${kindOf(raw)}`);
  const o = camelDeep(raw) as Obj;

  const input = messages(o.input, 'input') ?? messages(o.inputMessages, 'input_messages') ?? [];
  const expectedOutput = messages(o.expectedOutput, 'expected_output') ?? messages(o.expectedMessages, 'expected_messages') ?? [];
  // `output` is the final answer; a list there is the transcript of an older agentv.
  let outputList: Message[] | undefined;
  let output: string | null = null;
  if (Array.isArray(o.output)) outputList = messages(o.output, 'output');
  else output = text(o.output, 'output') ?? null;
  output ??= text(o.actualOutput, 'actual_output') ?? text(o.candidateAnswer, 'candidate_answer') ?? null;
  const produced = outputList ?? messages(o.outputMessages, 'output_messages');
  let transcript = messages(o.messages, 'messages');
  if (transcript === undefined) {
    const answer: Message[] = produced ?? (output != null && output !== '' ? [{ role: 'assistant', content: output }] : []);
    transcript = [...input, ...answer];
  }

  let traceSummary = (o.traceSummary ?? null) as TraceSummary | null;
  if (traceSummary != null) {
    if (!isObject(traceSummary)) throw new PayloadError(`invalid payload: trace_summary must be an object or null, got ${kindOf(traceSummary)}`);
    if (!isObject(traceSummary.toolCalls)) {
      const byName = traceSummary.toolCallsByName;
      traceSummary = { ...traceSummary, toolCalls: isObject(byName) ? (byName as Record<string, number>) : {} };
    }
  }
  const fromSummary = (key: string): unknown => (traceSummary as Obj | null)?.[key];
  const config = o.config;
  if (config != null && !isObject(config)) throw new PayloadError(`invalid payload: config must be an object or null, got ${kindOf(config)}`);

  const ctx: CodeGraderInput = {
    ...o,
    criteria: text(o.criteria, 'criteria') ?? text(o.expectedOutcome, 'expected_outcome') ?? '',
    expectedOutput,
    output,
    messages: transcript,
    inputFiles: Array.isArray(o.inputFiles) ? (o.inputFiles as string[]) : [],
    input,
    metadata: orNull(o.metadata),
    trace: orNull(o.trace),
    traceSummary,
    tokenUsage: orNull(o.tokenUsage ?? fromSummary('tokenUsage')),
    costUsd: orNull(o.costUsd ?? fromSummary('costUsd')),
    durationMs: orNull(o.durationMs ?? fromSummary('durationMs')),
    startTime: orNull(o.startTime),
    endTime: orNull(o.endTime),
    fileChanges: orNull(o.fileChanges),
    workspacePath: orNull(o.workspacePath),
    config: (config as Record<string, unknown> | null | undefined) ?? null,
  };
  if (typeof o.outputPath === 'string' && ctx.output == null) {
    // A large answer is written to a file: read it the first time a handler looks.
    const path = o.outputPath;
    let cached: string | null | undefined;
    Object.defineProperty(ctx, 'output', {
      get() {
        cached ??= JSON.parse(readFileSync(path, 'utf8')) as string | null;
        return cached;
      },
      enumerable: true,
      configurable: true,
    });
  }
  return ctx;
}

/** Parses stdin text (JSON) into the handler context. */
export function parseGraderInput(textIn: string): CodeGraderInput {
  if (textIn.trim() === '') {
    throw new PayloadError('no payload on stdin: expected the JSON object that agentv sends to graders and prompt templates');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(textIn);
  } catch (err) {
    throw new PayloadError(`invalid payload on stdin: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  return toGraderInput(raw);
}
