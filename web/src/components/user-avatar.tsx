import Avatar, { type AvatarProps } from '@mui/material/Avatar';
import type { SessionUser } from '../app/session-context';

export function UserAvatar({ user, ...rest }: { user: SessionUser } & AvatarProps) {
  const name = user.display_name || user.username;
  return (
    <Avatar src={user.avatar_url || undefined} alt={name} {...rest}>
      {name.slice(0, 1).toUpperCase()}
    </Avatar>
  );
}
