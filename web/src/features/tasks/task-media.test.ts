import { describe, expect, it } from 'vitest';
import { hasMedia, taskMedia } from './task-media';

describe('taskMedia', () => {
  it("reads Suno's clips: audio, cover (the large one first) and title", () => {
    const data = [
      {
        id: 'c1',
        title: 'Night drive',
        audio_url: 'https://cdn1.suno.ai/c1.mp3',
        video_url: 'https://cdn1.suno.ai/c1.mp4',
        image_url: 'https://cdn1.suno.ai/image_c1.png',
        image_large_url: 'https://cdn1.suno.ai/image_large_c1.png',
        status: 'complete',
      },
      {
        id: 'c2',
        title: '',
        audio_url: 'https://cdn1.suno.ai/c2.mp3',
        image_url: 'https://cdn1.suno.ai/c2.png',
      },
    ];
    expect(taskMedia(data)).toEqual({
      audios: [
        {
          url: 'https://cdn1.suno.ai/c1.mp3',
          cover: 'https://cdn1.suno.ai/image_large_c1.png',
          title: 'Night drive',
        },
        { url: 'https://cdn1.suno.ai/c2.mp3', cover: 'https://cdn1.suno.ai/c2.png' },
      ],
      videos: [],
      images: [],
    });
  });

  it("reads Suno's lyrics and Kling's task_result, also inside an envelope", () => {
    expect(taskMedia({ id: 'l1', title: 'Song', text: '[Verse]\nla la', status: 'complete' }).lyrics).toEqual(
      {
        title: 'Song',
        text: '[Verse]\nla la',
      },
    );
    const kling = {
      code: 0,
      data: {
        task_id: 'k1',
        task_status: 'succeed',
        task_result: {
          videos: [{ id: 'v1', url: 'https://cdn.klingai.com/v1.mp4', duration: '5' }],
          images: [{ index: 0, url: 'https://cdn.klingai.com/i0.png' }],
        },
      },
    };
    const media = taskMedia(kling);
    expect(media.videos).toEqual([{ url: 'https://cdn.klingai.com/v1.mp4' }]);
    expect(media.images).toEqual(['https://cdn.klingai.com/i0.png']);
    expect(hasMedia(media)).toBe(true);
  });

  it('keeps only http(s) addresses and finds nothing in an unfinished or odd payload', () => {
    const media = taskMedia([{ audio_url: 'javascript:alert(1)', image_url: 'data:image/png;base64,AAAA' }]);
    expect(hasMedia(media)).toBe(false);
    for (const data of [null, undefined, 42, 'text', {}, [], { task_result: { videos: 'x' } }])
      expect(hasMedia(taskMedia(data))).toBe(false);
  });
});
