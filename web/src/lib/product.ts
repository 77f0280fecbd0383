// Links shown in the default footer. Not translatable: addresses, not text.
export const PRODUCT_LINKS = {
  source: 'https://github.com/switchyard-gateway/switchyard',
  license: 'https://github.com/switchyard-gateway/switchyard/blob/main/LICENSE',
  upstream: [
    { name: 'one-hub', url: 'https://github.com/MartialBE/one-hub' },
    { name: 'one-api', url: 'https://github.com/songquanpeng/one-api' },
  ],
} as const;
