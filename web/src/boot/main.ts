import { preloadFirstScreen } from './first-screen';

preloadFirstScreen(document, window);
