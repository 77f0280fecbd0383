import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import { type ReactNode, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { checkForm, type FieldErrors, type Schema } from './field-errors';

export type FormValues = Record<string, string | boolean>;

export interface FormFieldSpec {
  name: string;
  /** Already translated. */
  label: string;
  kind?: 'text' | 'number' | 'bool' | 'select' | 'multiline' | 'password';
  options?: readonly { value: string; label: string }[];
  required?: boolean;
  disabled?: boolean;
  helper?: string;
}

/**
 * The dialog of the simple admin forms (groups, owners, codes, bot menu): fields from a list,
 * checked with the shared schema before anything is sent; nothing is written when a field fails.
 */
export function FormDialog<Out>(props: {
  open: boolean;
  title: string;
  fields: readonly FormFieldSpec[];
  initial: FormValues;
  /** The request body for the schema, from the text the fields hold. */
  toBody: (values: FormValues) => Record<string, unknown>;
  schema: Schema<Out>;
  submit: (body: Out) => Promise<unknown>;
  onClose: () => void;
  /** Rules the schema cannot say in the reader's language; a non-empty answer stops the submit. */
  validate?: (values: FormValues) => FieldErrors;
  /** Shown under the fields (a preview, a hint). */
  extra?: (values: FormValues) => ReactNode;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState<FormValues>(props.initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const { open, initial } = props;
  useEffect(() => {
    if (open) {
      setValues(initial);
      setErrors({});
    }
  }, [open, initial]);

  const submit = async () => {
    const own = props.validate?.(values) ?? {};
    if (Object.keys(own).length > 0) {
      setErrors(own);
      return;
    }
    const checked = checkForm(props.schema, props.toBody(values));
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await props.submit(checked.data);
      props.onClose();
    } catch {
      // The api client has already told the user why.
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={props.open} onClose={props.onClose} maxWidth="sm" fullWidth>
      <DialogTitle>{props.title}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          {props.fields.map((field) => {
            const value = values[field.name];
            if (field.kind === 'bool')
              return (
                <FormControlLabel
                  key={field.name}
                  control={
                    <Switch
                      checked={value === true}
                      disabled={field.disabled}
                      onChange={(e) => setValues((v) => ({ ...v, [field.name]: e.target.checked }))}
                    />
                  }
                  label={field.label}
                />
              );
            return (
              <TextField
                key={field.name}
                label={field.label}
                value={typeof value === 'string' ? value : ''}
                onChange={(e) => setValues((v) => ({ ...v, [field.name]: e.target.value }))}
                type={field.kind === 'number' ? 'number' : field.kind === 'password' ? 'password' : 'text'}
                select={field.kind === 'select'}
                multiline={field.kind === 'multiline'}
                minRows={field.kind === 'multiline' ? 4 : undefined}
                required={field.required}
                disabled={field.disabled}
                error={Boolean(errors[field.name])}
                helperText={errors[field.name] ?? field.helper}
                slotProps={{ htmlInput: { 'data-testid': `field-${field.name}` } }}
              >
                {field.options?.map((option) => (
                  <MenuItem key={option.value} value={option.value}>
                    {option.label}
                  </MenuItem>
                ))}
              </TextField>
            );
          })}
          {props.extra?.(values)}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={props.onClose}>{t('common.cancel')}</Button>
        <Button variant="contained" onClick={submit} disabled={busy} data-testid="form-submit">
          {t('common.submit')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** A number field's text as the schema expects it: blank stays undefined so "required" shows. */
export function num(value: string | boolean | undefined): number | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return Number(value);
}
