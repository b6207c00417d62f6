import { AnytoolError, ErrorCode } from '@anytool/core';
import { LoweringMemo } from '@anytool/core/internal';
import type { Model, ModelRequest, ModelResponse, ModelStreamEvent } from '../model.js';
import { modelFailed } from './failure.js';
import { mapStream, type ChunkMapper, type MappedStream } from './stream-map.js';

/** Who an adapter is: its constructor's errors, its `name` and its failures' hint name it this way. */
export interface AdapterIdentity {
  /** The adapter's class, as its constructor's errors name it: "OpenAIModel". */
  className: string;
  /** The first word of its `name`: "openai" in "openai gpt-4.1-mini". */
  label: string;
  /** A model id for the constructor's error to give as an example: "gpt-4.1-mini". */
  exampleModel: string;
  /** The environment variable of the API key, named when a request is refused for its key (401, 403). */
  keyVariable: string;
}

/**
 * The skeleton every adapter over an official client fills in: the flow of one
 * request, the same for each provider. An adapter says how a `ModelRequest`
 * becomes its client's parameters (`toParams`), how the client sends them
 * (`send`, `sendStream`), and how the reply and the stream's chunks become
 * neutral (`fromReply`, `chunkMapper`). The skeleton builds the parameters,
 * hands the run's signal to the client, turns a failed request into
 * `MODEL_FAILED` (a request the run aborted fails with the client's own abort
 * error) and streams through `mapStream`.
 *
 * `Params` is the request body, `Reply` what the client returns for it, `Chunk`
 * one event of its stream.
 */
export abstract class ModelAdapter<Params, Reply, Chunk> implements Model {
  /** A readable name for transcripts and errors: "openai gpt-4.1-mini". */
  readonly name: string;
  /** The model id requests ask for. */
  readonly model: string;
  /** The provider, as traces name it (`gen_ai.provider.name`). */
  abstract readonly provider: string;
  /** The retries the client makes of a failed request, named in the `MODEL_FAILED` text. */
  protected abstract readonly maxRetries: number;
  private readonly keyVariable: string;
  /** The turn's tools in this adapter's format, kept while a turn offers the same definitions as the one before. */
  protected readonly lowering = new LoweringMemo();

  /** Checks the model id of `options` (from JavaScript they may be anything). */
  protected constructor(options: { model?: unknown } | undefined, identity: AdapterIdentity) {
    const model = options?.model;
    if (typeof model !== 'string' || model === '') {
      throw new AnytoolError(ErrorCode.InvalidOptions, `new ${identity.className}(): \`model\` must be a model id such as "${identity.exampleModel}"`);
    }
    this.model = model;
    this.name = `${identity.label} ${model}`;
    this.keyVariable = identity.keyVariable;
  }

  /** The request body this adapter sends for `request` (also handy for logging). */
  abstract toParams(request: ModelRequest): Params;

  /** Sends `params` through the client, on `signal`, and returns its reply. */
  protected abstract send(params: Params, signal: AbortSignal | undefined): Promise<Reply>;

  /** The turn a reply holds, in neutral terms (`request`: the one it answers, naming its tools). */
  protected abstract fromReply(reply: Reply, request: ModelRequest): ModelResponse;

  /** Sends `params` as a streamed request, on `signal`, and returns the stream's chunks. */
  protected abstract sendStream(params: Params, signal: AbortSignal | undefined): Promise<AsyncIterator<Chunk>>;

  /** What turns the chunks of one streamed turn into events (a new one for each turn). */
  protected abstract chunkMapper(request: ModelRequest): ChunkMapper<Chunk>;

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const params = this.toParams(request);
    let reply: Reply;
    try {
      reply = await this.send(params, request.signal);
    } catch (error) {
      throw this.failure(error, request);
    }
    return this.fromReply(reply, request);
  }

  /**
   * The turn streamed: deltas as they come, then the turn as `generate` gives
   * it. The request goes out on the first read; stopping early ends it.
   */
  stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    return { [Symbol.asyncIterator]: (): MappedStream => mapStream(() => this.openStream(request), this.chunkMapper(request)) };
  }

  private async openStream(request: ModelRequest): Promise<AsyncIterator<Chunk>> {
    const params = this.toParams(request);
    try {
      return await this.sendStream(params, request.signal);
    } catch (error) {
      throw this.failure(error, request);
    }
  }

  /** What a failed request throws: the error itself when the run aborted it, else `MODEL_FAILED`. */
  private failure(error: unknown, request: ModelRequest): unknown {
    if (request.signal?.aborted) return error;
    return modelFailed(this.name, error, this.maxRetries, this.keyVariable);
  }
}
