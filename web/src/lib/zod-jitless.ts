import { config } from 'zod';

// The console's Content-Security-Policy allows no eval: zod's compiled validators would first probe
// `Function('')` (a reported violation) before falling back. Imported first by main.tsx.
config({ jitless: true });
