import type { ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { ForbiddenCard } from '../../features/errors/forbidden-card';
import { useSession } from '../session-context';

/** A protected view sends a visitor without a session to /login. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { user } = useSession();
  const location = useLocation();
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return children;
}

/** Administrators' screens (role 10 and up); the sidebar already hides them from everyone else. */
export function RequireAdmin() {
  const { isAdmin } = useSession();
  return isAdmin ? <Outlet /> : <ForbiddenCard />;
}
