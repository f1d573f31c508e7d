/** Runs notifications as its own process: `node services/notifications/dist/main.js` (see @cairn/service). */
import { runStandalone } from '@cairn/service';
import { start } from './index';

runStandalone({ name: 'notifications', needsDatabase: true, start });
