import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { SearchField } from './search-field';

describe('SearchField', () => {
  it('applies once typing pauses, without Enter', async () => {
    const onApply = vi.fn();
    render(<SearchField label="Search" value="" onApply={onApply} />);
    fireEvent.change(screen.getByLabelText('Search'), { target: { value: 'gpt' } });
    expect(onApply).not.toHaveBeenCalled();
    await waitFor(() => expect(onApply).toHaveBeenCalledWith('gpt'), { timeout: 2000 });
    expect(onApply).toHaveBeenCalledTimes(1);
  });

  it('does not apply an unchanged value', async () => {
    const onApply = vi.fn();
    render(<SearchField label="Search" value="gpt" onApply={onApply} />);
    await new Promise((r) => setTimeout(r, 600));
    expect(onApply).not.toHaveBeenCalled();
  });
});
