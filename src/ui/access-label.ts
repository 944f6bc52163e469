// Pure: the bar's line on how the viewer got in and whether they may act. A signed-out viewer (the sign-in
// page) is told what sign-in asks for and what it will allow, not what a server without sign-in would be.
import type { Viewer } from './viewer.js';

/** `actionsAllowed`: whether this server lets a signed-in viewer act (--allow-actions). */
export function accessLabel(viewer: Viewer, actionsAllowed: boolean): string {
  switch (viewer.via) {
    case 'signed-out':
      return `sign-in with a token · ${actionsAllowed ? 'actions allowed once signed in' : 'read-only'}`;
    case 'none':
      return `no sign-in (loopback) · ${actionWord(viewer.canAct)}`;
    case 'bearer':
    case 'session':
      return `signed in as ${viewer.who} (token) · ${actionWord(viewer.canAct)}`;
  }
}

const actionWord = (canAct: boolean): string => (canAct ? 'actions allowed' : 'read-only');
