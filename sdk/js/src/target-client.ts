import { convertMessages, kindOf } from './payload.js';
import type { Message } from './types.js';

/** Environment variables agentv sets for a code judge whose evaluator has `target:`. */
export const TARGET_PROXY_URL_ENV = 'AGENTV_TARGET_PROXY_URL';
export const TARGET_PROXY_TOKEN_ENV = 'AGENTV_TARGET_PROXY_TOKEN';

/** One call through the target proxy. */
export interface TargetInvokeRequest {
  question: string;
  systemPrompt?: string;
  /** A target name from `info().availableTargets`; default: the case's judge. */
  target?: string;
  evalCaseId?: string;
  attempt?: number;
}

/** What the target answered. */
export interface TargetInvokeResponse {
  /** The answer as messages (keys camelCase, content as the target returned it). */
  outputMessages: Message[];
  /** The final answer text. */
  rawText: string;
}

/** The proxy's state. */
export interface TargetInfo {
  /** The default target: the case's judge. */
  targetName: string;
  maxCalls: number;
  callCount: number;
  availableTargets: string[];
}

/** A call the proxy refused or could not make; status is the HTTP status (429: max_calls reached). */
export class TargetProxyError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'TargetProxyError';
    this.status = status;
  }
}

export interface TargetClient {
  info(): Promise<TargetInfo>;
  invoke(request: TargetInvokeRequest): Promise<TargetInvokeResponse>;
  /** Several calls in one request; each counts against max_calls. */
  invokeBatch(requests: TargetInvokeRequest[]): Promise<TargetInvokeResponse[]>;
}

type Env = Record<string, string | undefined>;

/**
 * Returns a client for the target proxy agentv runs while a code judge with `target: true` or
 * `target: {max_calls: n}` is running, or undefined when the judge was started without one.
 *
 * ```ts
 * const target = createTargetClient();
 * const { rawText } = await target!.invoke({ question: `Is this polite? ${actualOutput}` });
 * ```
 */
export function createTargetClient(env: Env = process.env): TargetClient | undefined {
  const url = env[TARGET_PROXY_URL_ENV];
  const token = env[TARGET_PROXY_TOKEN_ENV];
  if (!url || !token) return undefined;
  const base = url.replace(/\/+$/, '');

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new TargetProxyError(`target proxy ${path}: answered ${res.status} with non-JSON: ${text.slice(0, 200)}`, res.status);
    }
    if (!res.ok) {
      const msg = typeof (data as { error?: unknown })?.error === 'string' ? (data as { error: string }).error : text.slice(0, 200);
      throw new TargetProxyError(`target proxy ${path}: ${res.status}: ${msg}`, res.status);
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new TargetProxyError(`target proxy ${path}: want a JSON object, got ${kindOf(data)}`, res.status);
    }
    return data as Record<string, unknown>;
  }

  const answer = (o: unknown, where: string): TargetInvokeResponse => {
    const r = (o ?? {}) as Record<string, unknown>;
    return {
      outputMessages: convertMessages(r.outputMessages ?? [], `${where}.outputMessages`),
      rawText: typeof r.rawText === 'string' ? r.rawText : '',
    };
  };

  return {
    async info() {
      return (await call('GET', '/info')) as unknown as TargetInfo;
    },
    async invoke(request) {
      return answer(await call('POST', '/invoke', request), 'invoke');
    },
    async invokeBatch(requests) {
      const r = await call('POST', '/invokeBatch', { requests });
      const list = Array.isArray(r.responses) ? r.responses : [];
      return list.map((o, i) => answer(o, `invokeBatch.responses[${i}]`));
    },
  };
}
