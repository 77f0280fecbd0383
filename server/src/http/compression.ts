import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Replies smaller than this go as they are: compressing them saves less than it costs. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * Brotli or gzip for the replies of a scope (the management API's JSON, index.html), as the client
 * accepts. Registered before the console's static files, which send the build's precompressed
 * copies themselves and are then left alone.
 */
export async function registerCompression(scope: FastifyInstance): Promise<void> {
  await scope.register(fastifyCompress, {
    global: true,
    threshold: COMPRESS_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
    // Request bodies are small JSON; a compressed one is not something the console sends.
    globalDecompression: false,
  });
}
