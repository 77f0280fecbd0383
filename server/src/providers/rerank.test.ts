import { describe, expect, it } from 'vitest';
import { readRerankRequest, rerankResults } from './rerank.js';
import { TranslationError } from './translate/translation-error.js';

describe('gateway rerank shape', () => {
  it('reads strings and {text} documents, top_n and return_documents', () => {
    expect(
      readRerankRequest({
        model: 'm',
        query: 'q',
        documents: ['a', { text: 'b' }],
        top_n: 1,
        return_documents: false,
      }),
    ).toEqual({
      model: 'm',
      query: 'q',
      documents: ['a', 'b'],
      topN: 1,
      returnDocuments: false,
    });
    expect(readRerankRequest({ model: 'm', query: 'q', documents: ['a'] }).returnDocuments).toBe(true);
  });

  it('refuses a body that is not a rerank request', () => {
    expect(() => readRerankRequest({ model: 'm', query: 'q', documents: [] })).toThrow(TranslationError);
    expect(() => readRerankRequest({ model: 'm', documents: ['a'] })).toThrow(/query/);
    expect(() => readRerankRequest({ model: 'm', query: 'q', documents: [3] })).toThrow(/documents\[0\]/);
  });

  it('sorts by score, cuts to top_n, echoes documents and drops out-of-range indexes', () => {
    const req = { model: 'm', query: 'q', documents: ['zero', 'one', 'two'], topN: 2, returnDocuments: true };
    expect(
      rerankResults(req, [
        { index: 0, score: 0.1 },
        { index: 2, score: 0.9 },
        { index: 1, score: 0.5 },
        { index: 7, score: 1 },
      ]),
    ).toEqual([
      { index: 2, relevance_score: 0.9, document: { text: 'two' } },
      { index: 1, relevance_score: 0.5, document: { text: 'one' } },
    ]);
  });
});
