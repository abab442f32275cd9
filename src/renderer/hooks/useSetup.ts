// What the first-run steps, the Models view and the hits need to know about this kb — its index's
// status, the models, the settings — asked again whenever the index changes; and the theme it sets.
import { useEffect, useState } from 'react';
import type { KbBridge } from '../../shared/api';
import type { SetupState } from '../views/FirstRun';

export function useSetup(kb: KbBridge, version: number): SetupState {
  const [setup, setSetup] = useState<SetupState>({ status: null, models: null, settings: null });
  useEffect(() => {
    let live = true;
    void Promise.all([
      kb['index.status']({}).catch(() => null),
      kb['models.list']({}).catch(() => null),
      kb['settings.get']({}).catch(() => null),
    ]).then(([status, models, settings]) => live && setSetup({ status, models, settings }));
    return () => {
      live = false;
    };
  }, [kb, version]);
  const theme = setup.settings?.values['ui.theme'];
  useEffect(() => {
    document.documentElement.dataset.theme = theme === 'light' || theme === 'dark' ? theme : 'system';
  }, [theme]);
  return setup;
}
