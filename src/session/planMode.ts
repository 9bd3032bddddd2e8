// The session side of plan mode: EnterPlanMode / ExitPlanMode change the one permission state,
// and the plan-mode reminder carries the host's planModeInstructions.
import { planModeReminder, type PlanModeService } from '../../tools/planMode.js';
import type { PermissionState } from '../permissions/index.js';

export function createPlanModeService(
  permissions: PermissionState,
  instructions: () => string | undefined,
): PlanModeService {
  return {
    mode: () => permissions.mode,
    enter: () => permissions.setMode('plan'),
    exit() {
      // The user's answer may have chosen the next mode already (a setMode update); else go back.
      if (permissions.mode === 'plan')
        permissions.setMode(permissions.modeBeforePlan === 'plan' ? 'default' : permissions.modeBeforePlan);
      return permissions.mode;
    },
    reminder: () => planModeReminder(instructions()),
  };
}
