import { renderQuota } from '@switchyard/domain';
import { useCallback } from 'react';
import { useSiteInfo } from '../features/site/site-info';

/** Spec §9: a quota as the site shows it (currency or the raw count), for any screen. */
export function useQuotaFormat(): (quota: number) => string {
  const site = useSiteInfo();
  return useCallback(
    (quota: number) =>
      renderQuota(quota, { quotaPerUnit: site.quota_per_unit, displayInCurrency: site.display_in_currency }),
    [site.quota_per_unit, site.display_in_currency],
  );
}
