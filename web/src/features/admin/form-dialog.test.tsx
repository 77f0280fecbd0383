import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { FormDialog, num } from './form-dialog';

const schema = z.strictObject({
  name: z.string().trim().min(1),
  count: z.number().int().min(1),
});

function open(
  submit: (body: unknown) => Promise<unknown>,
  validate?: (v: Record<string, string | boolean>) => Record<string, string>,
) {
  const onClose = vi.fn();
  render(
    <FormDialog<unknown>
      open
      title="Codes"
      initial={{ name: '', count: '1' }}
      fields={[
        { name: 'name', label: 'Name', required: true },
        { name: 'count', label: 'Count', kind: 'number' },
      ]}
      toBody={(v) => ({ name: v.name, count: num(v.count) })}
      schema={schema}
      submit={submit}
      onClose={onClose}
      {...(validate ? { validate } : {})}
    />,
  );
  return onClose;
}

const fill = (id: string, value: string) => fireEvent.change(screen.getByTestId(id), { target: { value } });

describe('FormDialog', () => {
  it('shows translated field errors and sends nothing while a field fails', async () => {
    const submit = vi.fn(async () => undefined);
    open(submit);
    fill('field-count', '0');
    await act(async () => fireEvent.click(screen.getByTestId('form-submit')));
    expect(screen.getByText('不能为空')).toBeTruthy();
    expect(screen.getByText('不能小于 1')).toBeTruthy();
    expect(submit).not.toHaveBeenCalled();
  });

  it('sends the parsed body and closes', async () => {
    const submit = vi.fn(async () => undefined);
    const onClose = open(submit);
    fill('field-name', ' Welcome ');
    fill('field-count', '3');
    await act(async () => fireEvent.click(screen.getByTestId('form-submit')));
    expect(submit).toHaveBeenCalledWith({ name: 'Welcome', count: 3 });
    expect(onClose).toHaveBeenCalled();
  });

  it('stays open when the server refuses', async () => {
    const onClose = open(async () => {
      throw new Error('409');
    });
    fill('field-name', 'x');
    await act(async () => fireEvent.click(screen.getByTestId('form-submit')));
    expect(onClose).not.toHaveBeenCalled();
  });

  it("lets the screen's own rule stop the submit", async () => {
    const submit = vi.fn(async () => undefined);
    open(submit, (v): Record<string, string> => (v.name === 'bind' ? { name: 'taken' } : {}));
    fill('field-name', 'bind');
    await act(async () => fireEvent.click(screen.getByTestId('form-submit')));
    expect(screen.getByText('taken')).toBeTruthy();
    expect(submit).not.toHaveBeenCalled();
  });
});
