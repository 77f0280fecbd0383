import { describe, expect, it, vi } from 'vitest';
import { attachToaster, onToastWanted, type ToastRequest, toast } from './toast';

describe('toast', () => {
  it('asks for the toaster on the first toast, keeps the toasts until it is there, then hands them over', () => {
    const wanted = vi.fn();
    const stopWanting = onToastWanted(wanted);
    toast.error('first');
    toast.success('second');
    expect(wanted).toHaveBeenCalled();

    const shown: ToastRequest[] = [];
    const closeAll = vi.fn();
    const detach = attachToaster({ show: (r) => shown.push(r), closeAll });
    expect(shown.map((r) => [r.message, r.options.variant, r.options.preventDuplicate])).toEqual([
      ['first', 'error', true],
      ['second', 'success', true],
    ]);

    toast.copy('third');
    expect(shown[2]).toMatchObject({ message: 'third', options: { variant: 'error', persist: true } });
    toast.closeAll();
    expect(closeAll).toHaveBeenCalledOnce();

    detach();
    stopWanting();
  });

  it('tells a late listener at once that a toast is waiting, and closeAll drops the waiting ones', () => {
    toast.info('waiting');
    const wanted = vi.fn();
    const stop = onToastWanted(wanted);
    expect(wanted).toHaveBeenCalledOnce();
    stop();

    toast.closeAll();
    const shown: ToastRequest[] = [];
    const detach = attachToaster({ show: (r) => shown.push(r), closeAll: () => {} });
    expect(shown).toEqual([]);
    detach();
  });
});
