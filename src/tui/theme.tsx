// Colour on or off (NO_COLOR): components ask for a colour through paint(), which gives nothing
// when colour is off, so Ink writes no colour codes at all.
import { createContext, useContext } from 'react';

export interface Theme {
  color: boolean;
  /** The colour to pass to <Text color>, or undefined when colour is off. */
  paint(color: string): string | undefined;
  dim: boolean;
}

export function makeTheme(color: boolean): Theme {
  return { color, paint: (c) => (color ? c : undefined), dim: color };
}

export const ThemeContext = createContext<Theme>(makeTheme(true));

export const useTheme = (): Theme => useContext(ThemeContext);
