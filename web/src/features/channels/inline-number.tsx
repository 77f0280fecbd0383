import TextField from '@mui/material/TextField';
import { useEffect, useState } from 'react';

/**
 * A number edited in its table cell (priority, weight): saved on Enter or blur when changed and at
 * least `min`; otherwise the stored value comes back.
 */
export function InlineNumber(props: {
  /** null: no common value (a tag's members may differ); any valid number typed is saved. */
  value: number | null;
  min: number;
  label: string;
  onSave: (value: number) => Promise<unknown>;
}) {
  const shown = props.value === null ? '' : String(props.value);
  const [text, setText] = useState(shown);
  const [saving, setSaving] = useState(false);
  useEffect(() => setText(shown), [shown]);
  const parsed = Number(text);
  const blank = text.trim() === '';
  const valid = !blank && Number.isInteger(parsed) && parsed >= props.min;
  const commit = async () => {
    if (!valid || parsed === props.value) {
      setText(shown);
      return;
    }
    setSaving(true);
    try {
      await props.onSave(parsed);
    } catch {
      setText(shown);
    } finally {
      setSaving(false);
    }
  };
  return (
    <TextField
      size="small"
      type="number"
      value={text}
      disabled={saving}
      error={!valid && !(blank && props.value === null)}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === 'Enter') (e.target as HTMLInputElement).blur();
      }}
      sx={{ '& input': { px: 1 } }}
      slotProps={{ htmlInput: { min: props.min, 'aria-label': props.label, style: { width: 44 } } }}
    />
  );
}
