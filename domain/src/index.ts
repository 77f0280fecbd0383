export * from './enums.js';
export * from './errors.js';
export * from './options.js';
export * from './schemas/user.js';
