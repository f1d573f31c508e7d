/** Runs social as its own process: `node services/social/dist/main.js` (see @cairn/service). */
import { runStandalone } from '@cairn/service';
import { start } from './index';

runStandalone({ name: 'social', needsDatabase: true, start });
