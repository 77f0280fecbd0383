import {
  ALIPAY_PAY_TYPES,
  EPAY_PAY_TYPES,
  PAYMENT_CONFIG_FIELDS,
  PAYMENT_CURRENCIES,
  PAYMENT_OPTIONAL_FIELDS,
  PAYMENT_SECRET_FIELDS,
  type PaymentType,
  paymentInput,
} from '@switchyard/domain';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { MessageKey } from '../../i18n/message-key';
import { toast } from '../../lib/toast';
import { FormDialog, type FormFieldSpec, type FormValues, num } from '../admin/form-dialog';
import { type GatewayView, saveGateway } from './api';

/** A gateway as GET /api/payment lists it: secrets blank, `secrets_set` names the stored ones. */
const CHOICES: Partial<Record<string, readonly string[]>> = { pay_type: [] };

/** The create/edit dialog of one gateway; its type is chosen before it opens and never changes. */
export function GatewayDialog(props: {
  open: boolean;
  type: PaymentType;
  gateway: GatewayView | null;
  onClose: () => void;
  onSaved: () => Promise<void>;
}) {
  const { t } = useTranslation();
  const { gateway, type } = props;
  const configFields = PAYMENT_CONFIG_FIELDS[type];
  const initial = useMemo<FormValues>(() => {
    const v: FormValues = {
      name: gateway?.name ?? '',
      icon: gateway?.icon ?? '',
      notify_domain: gateway?.notify_domain ?? '',
      fixed_fee: String(gateway?.fixed_fee ?? 0),
      percent_fee: String(gateway?.percent_fee ?? 0),
      currency: gateway?.currency ?? (type === 'stripe' ? 'USD' : 'CNY'),
      sort: String(gateway?.sort ?? 1),
      enable: gateway?.enable ?? true,
    };
    for (const f of configFields)
      v[`config.${f}`] = gateway?.config[f] ?? (f === 'pay_type' && type === 'alipay' ? 'pagepay' : '');
    return v;
  }, [gateway, type, configFields]);
  const payTypes =
    type === 'epay' ? EPAY_PAY_TYPES : type === 'alipay' ? ALIPAY_PAY_TYPES : (CHOICES.pay_type ?? []);
  const fields: FormFieldSpec[] = [
    { name: 'name', label: t('admin.common.name'), required: true },
    {
      name: 'icon',
      label: t('admin.payment.field.icon'),
      required: true,
      helper: t('admin.payment.iconHint'),
    },
    {
      name: 'currency',
      label: t('admin.payment.field.currency'),
      kind: 'select',
      options: PAYMENT_CURRENCIES.map((c) => ({ value: c, label: c })),
      disabled: type === 'alipay' || type === 'wxpay',
    },
    {
      name: 'fixed_fee',
      label: t('admin.payment.field.fixedFee'),
      kind: 'number',
      helper: t('admin.payment.fixedFeeHint'),
    },
    {
      name: 'percent_fee',
      label: t('admin.payment.field.percentFee'),
      kind: 'number',
      helper: t('admin.payment.percentFeeHint'),
    },
    { name: 'sort', label: t('admin.payment.field.sort'), kind: 'number' },
    {
      name: 'notify_domain',
      label: t('admin.payment.field.notifyDomain'),
      helper: t('admin.payment.notifyHint'),
    },
    ...configFields.map((f): FormFieldSpec => {
      const label = t(`admin.payment.config.${f}` as MessageKey);
      if (f === 'pay_type')
        return {
          name: `config.${f}`,
          label,
          kind: 'select',
          options: payTypes.map((p) => ({ value: p, label: p || t('admin.payment.cashier') })),
        };
      const secret = PAYMENT_SECRET_FIELDS.has(f);
      const stored = secret && gateway?.secrets_set.includes(f);
      const multiline = f.endsWith('private_key') || f.endsWith('public_key');
      return {
        name: `config.${f}`,
        label,
        kind: multiline ? 'multiline' : secret ? 'password' : 'text',
        required: !PAYMENT_OPTIONAL_FIELDS.has(f) && !stored,
        ...(stored
          ? { helper: t('admin.payment.secretKept') }
          : f === 'api_base'
            ? { helper: t('admin.payment.apiBaseHint') }
            : {}),
      };
    }),
    { name: 'enable', label: t('admin.payment.field.enable'), kind: 'bool' },
  ];
  return (
    <FormDialog<unknown>
      open={props.open}
      title={
        gateway
          ? t('admin.payment.editTitle')
          : t('admin.payment.createTitle', { type: t(`admin.payment.types.${type}`) })
      }
      initial={initial}
      fields={fields}
      toBody={(v) => {
        const config: Record<string, string> = {};
        for (const f of configFields) config[f] = String(v[`config.${f}`] ?? '');
        return {
          ...(gateway ? { id: gateway.id } : {}),
          type,
          name: v.name,
          icon: v.icon,
          notify_domain: v.notify_domain,
          fixed_fee: num(v.fixed_fee),
          percent_fee: num(v.percent_fee),
          currency: type === 'alipay' || type === 'wxpay' ? 'CNY' : v.currency,
          sort: num(v.sort),
          enable: v.enable === true,
          config,
        };
      }}
      schema={paymentInput}
      submit={async (body) => {
        await saveGateway(body, gateway !== null);
        toast.success(t('admin.common.saved'));
        await props.onSaved();
      }}
      onClose={props.onClose}
    />
  );
}
