/** Runs gateway as its own process: `node services/gateway/dist/main.js` (see @cairn/service). */
import { runStandalone } from '@cairn/service';
import { start } from './index';

runStandalone({ name: 'gateway', needsDatabase: false, start });
