// Source messages of the admin console screens; the other languages mirror these keys exactly.
export const adminZhCN = {};
