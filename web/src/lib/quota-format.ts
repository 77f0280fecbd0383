import { renderQuota } from '@switchyard/domain';
import { useCallback } from 'react';
import { useSiteInfo } from './site-info';

/**
 * A quota as the site shows it (currency or the raw count), for any screen. `digits`
 * overrides the two currency decimals where cents are too coarse (chart axes).
 */
export function useQuotaFormat(): (quota: number, digits?: number) => string {
  const site = useSiteInfo();
  return useCallback(
    (quota: number, digits?: number) =>
      renderQuota(quota, {
        quotaPerUnit: site.quota_per_unit,
        displayInCurrency: site.display_in_currency,
        ...(digits === undefined ? {} : { digits }),
      }),
    [site.quota_per_unit, site.display_in_currency],
  );
}
