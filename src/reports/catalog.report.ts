import { Inject, Injectable } from '@nestjs/common';
import { toolScope } from '../kernel/auth/scopes';
import { toolCost } from '../limits';
import { Settings, SETTINGS } from '../kernel/settings/settings';
import { ToolRegistry } from '../tools/index';
import type { PlanList, ToolDetailsList } from './reports.dto';

/** `word_count` -> `Word count`: a tool's title when it gives none (as MCP's tools/list). */
function titleOf(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * What the service offers, for operators: the plans keys may be given, and every tool with its
 * schemas, its price on each plan, its runtime settings and MCP's hints.
 */
@Injectable()
export class CatalogReport {
  constructor(
    private readonly registry: ToolRegistry,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  plans(): PlanList {
    return {
      plans: Object.entries(this.settings.plans).map(([name, plan]) => ({
        name,
        daily_limit: plan.daily_limit,
        monthly_limit: plan.monthly_limit,
        rate_limit: plan.rate_limit,
        tool_costs: { ...plan.tool_costs },
        default: name === this.settings.defaultPlan,
      })),
    };
  }

  tools(): ToolDetailsList {
    const plans = Object.keys(this.settings.plans);
    return {
      tools: this.registry.list().map((tool) => {
        const hints = tool.annotations ?? {};
        return {
          name: tool.name,
          title: tool.title ?? titleOf(tool.name),
          description: tool.description,
          path: tool.path,
          scope: toolScope(tool.name),
          cost: tool.runtime.cost,
          cost_by_plan: Object.fromEntries(
            plans.map((plan) => [
              plan,
              toolCost(this.settings, plan, tool.name, tool.runtime.cost),
            ]),
          ),
          timeout_ms: tool.runtime.timeoutMs,
          concurrency: tool.runtime.concurrency,
          queue: tool.runtime.queue,
          annotations: {
            readOnlyHint: hints.readOnlyHint ?? false,
            destructiveHint: hints.destructiveHint ?? true,
            idempotentHint: hints.idempotentHint ?? false,
            openWorldHint: hints.openWorldHint ?? true,
          },
          input_schema: tool.inputSchema,
          output_schema: tool.outputSchema ?? {},
        };
      }),
    };
  }
}
