/**
 * The reports feature's public entry: what the other features, the transports, the tools and
 * the processes may use of it. Nothing else of this folder is imported from outside it.
 */
export { CatalogReport } from './catalog.report';
export { ListsReport } from './lists.report';
export {
  AuditSearchPage,
  ErrorCountsView,
  IssuersView,
  OperatorInvocationView,
  PlanList,
  ToolDetailsList,
  TopUsageView,
  UsageTotalsView,
} from './reports.dto';
export { ReportsModule } from './reports.module';
export { StatusReport } from './status.report';
export { UsageTotals } from './usage-totals';
