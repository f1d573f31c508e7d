/** Runs migrations as its own process: `node services/migrations/dist/main.js` (see @cairn/service). */
import { runStandalone } from '@cairn/service';
import { start } from './index';

runStandalone({ name: 'migrations', needsDatabase: true, start });
