import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { InlineNumber } from './inline-number';

function field() {
  return screen.getByLabelText('priority') as HTMLInputElement;
}

async function type(value: string) {
  await act(async () => {
    fireEvent.change(field(), { target: { value } });
    fireEvent.blur(field());
  });
}

describe('InlineNumber', () => {
  it('saves a changed value that reaches the minimum', async () => {
    const save = vi.fn(async () => undefined);
    render(<InlineNumber value={1} min={0} label="priority" onSave={save} />);
    await type('7');
    expect(save).toHaveBeenCalledWith(7);
  });

  it('does not save a value below the minimum, a fraction or the same value, and shows the stored one again', async () => {
    const save = vi.fn(async () => undefined);
    render(<InlineNumber value={2} min={1} label="priority" onSave={save} />);
    for (const bad of ['0', '1.5', '', '2']) {
      await type(bad);
      expect(field().value).toBe('2');
    }
    expect(save).not.toHaveBeenCalled();
  });

  it('shows the stored value again when the save fails', async () => {
    const save = vi.fn(async () => {
      throw new Error('refused');
    });
    render(<InlineNumber value={3} min={0} label="priority" onSave={save} />);
    await type('9');
    expect(save).toHaveBeenCalledWith(9);
    expect(field().value).toBe('3');
  });

  it('with no common value, saves whatever valid number is typed', async () => {
    const save = vi.fn(async () => undefined);
    render(<InlineNumber value={null} min={0} label="priority" onSave={save} />);
    expect(field().value).toBe('');
    await type('0');
    expect(save).toHaveBeenCalledWith(0);
  });
});
