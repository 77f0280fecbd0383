export * from './default-prices.js';
export * from './enums.js';
export * from './errors.js';
export * from './options.js';
export * from './providers.js';
export * from './quota.js';
export * from './schemas/option.js';
export * from './schemas/user.js';
