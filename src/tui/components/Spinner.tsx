// The running mark of a tool row.
import { Text } from 'ink';
import { useEffect, useState } from 'react';
import { useTheme } from '../theme.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function Spinner() {
  const theme = useTheme();
  const [i, setI] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setI((n) => (n + 1) % FRAMES.length), 100);
    return () => clearInterval(t);
  }, []);
  return <Text color={theme.paint('yellow')}>{FRAMES[i]}</Text>;
}
