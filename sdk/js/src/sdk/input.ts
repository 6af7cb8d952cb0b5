import { readFileSync } from 'node:fs';

import { kindOf, PayloadError } from '../payload.js';
import { checkPayload } from './schema.js';
import type { CodeGraderInput, Message, Trace, TraceSummary } from './types.js';

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

/**
 * Renames every key below v with camel4, as 4.42.4's toCamelCaseDeep (packages/sdk/src/
 * case-conversion.ts) does: the user's config, metadata, message contents and tool inputs, and
 * the tool names of the trace's counts too (`read_file` becomes `readFile`, `Read` stays).
 */
export function camelDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => camelDeep(x));
  if (!isObject(v)) return v;
  const out: Obj = {};
  for (const [k, val] of Object.entries(v)) out[camel4(k)] = camelDeep(val);
  return out;
}

const orNull = <T>(v: unknown): T | null => (v === undefined ? null : (v as T));

/**
 * Turns a parsed payload into the handler context, checked as AgentV 4.42.4's `@agentv/sdk`
 * checks it (see schema.ts): the 4.x names are required where 4.42.4 requires them, and a payload
 * that carries the 2.5 names (`candidate_answer`, `reference_answer`, ...) is refused, as 4.42.4's
 * Python helper refuses it. Optional fields a payload lacks are null.
 */
export function toGraderInput(raw: unknown): CodeGraderInput {
  if (!isObject(raw)) throw new PayloadError(`invalid payload: expected a JSON object, got ${kindOf(raw)}`);
  const o = camelDeep(raw) as Obj;
  checkPayload(raw, o);
  const ctx: CodeGraderInput = {
    ...o,
    criteria: o.criteria as string,
    expectedOutput: o.expectedOutput as Message[],
    output: orNull(o.output),
    messages: (o.messages as Message[] | undefined) ?? [],
    inputFiles: o.inputFiles as string[],
    input: o.input as Message[],
    metadata: orNull(o.metadata),
    trace: orNull<Trace>(o.trace),
    traceSummary: orNull<TraceSummary>(o.traceSummary),
    tokenUsage: orNull(o.tokenUsage),
    costUsd: orNull(o.costUsd),
    durationMs: orNull(o.durationMs),
    startTime: orNull(o.startTime),
    endTime: orNull(o.endTime),
    fileChanges: orNull(o.fileChanges),
    workspacePath: orNull(o.workspacePath),
    config: orNull(o.config),
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
