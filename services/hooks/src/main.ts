/** Runs hooks as its own process: `node services/hooks/dist/main.js` (see @cairn/service). */
import { runStandalone } from '@cairn/service';
import { start } from './index';

runStandalone({ name: 'hooks', needsDatabase: true, start });
