/** What a node tells its tracing about a finished request (relay call or API request). */
export interface CallTracer {
  call(span: {
    requestId: string;
    method: string;
    route: string;
    status: number;
    startMs: number;
    endMs: number;
    model?: string;
    channel?: number;
  }): void;
  /** Sends what is buffered and stops. */
  close(): Promise<void>;
}
