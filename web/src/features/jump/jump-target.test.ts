import { describe, expect, it } from 'vitest';
import { jumpTarget } from './jump-target';

const origin = 'https://gw.example';

describe('jumpTarget', () => {
  it('follows app deep links and same-site paths', () => {
    expect(jumpTarget('ama://set-api-key?server=https://gw.example&key=sk-1', origin)).toBe(
      'ama://set-api-key?server=https://gw.example&key=sk-1',
    );
    expect(jumpTarget('opencat://team/join?token=sk-1', origin)).toBe('opencat://team/join?token=sk-1');
    expect(jumpTarget('/panel/token', origin)).toBe('https://gw.example/panel/token');
  });

  it('refuses other sites, script schemes and nothing', () => {
    expect(jumpTarget('https://evil.example/phish', origin)).toBeNull();
    expect(jumpTarget('javascript:alert(1)', origin)).toBeNull();
    expect(jumpTarget('data:text/html,<script>1</script>', origin)).toBeNull();
    expect(jumpTarget(null, origin)).toBeNull();
    expect(jumpTarget('', origin)).toBeNull();
  });
});
