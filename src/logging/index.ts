/**
 * The logging feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export {
  HTTP_LOGGER,
  LoggingModule,
  StderrLogCoreModule,
  StderrLoggingModule,
} from './logging.module';
export { LOG_DESTINATION } from './log-control';
