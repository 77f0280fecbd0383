import Search from '@mui/icons-material/Search';
import InputAdornment from '@mui/material/InputAdornment';
import TextField from '@mui/material/TextField';
import { useEffect, useState } from 'react';

/** How long typing must pause before the filter applies by itself. */
export const SEARCH_DELAY_MS = 400;

/**
 * A filter text field that applies once typing pauses, on Enter, or when it loses focus, so typing
 * does not fetch per key and nobody has to guess that Enter is needed.
 */
export function SearchField(props: {
  label: string;
  value: string;
  onApply: (value: string) => void;
  width?: number;
}) {
  const [text, setText] = useState(props.value);
  useEffect(() => setText(props.value), [props.value]);
  const apply = () => {
    if (text.trim() !== props.value) props.onApply(text.trim());
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: reruns only when the text changes
  useEffect(() => {
    const timer = setTimeout(apply, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <TextField
      size="small"
      label={props.label}
      value={text}
      onChange={(event) => setText(event.target.value)}
      onBlur={apply}
      onKeyDown={(event) => {
        if (event.key === 'Enter') apply();
      }}
      sx={{ width: props.width ?? 200 }}
      slotProps={{
        input: {
          endAdornment: (
            <InputAdornment position="end">
              <Search fontSize="small" />
            </InputAdornment>
          ),
        },
      }}
    />
  );
}
