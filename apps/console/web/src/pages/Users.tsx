import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { ROLES, type ConsoleUser, type Role, type SessionUser, type UserWithPassword } from '../api/types';
import { Badge } from '../components/Badge';
import { EmptyState, ErrorPanel, errorMessage, Spinner } from '../components/Feedback';
import { formatAge, formatDateTime } from '../lib/format';
import { auditHref } from '../lib/query-string';
import { Link } from '../lib/router';

const USERS_KEY = ['users'] as const;

/** A password the console generated, shown once: to whom and why. */
interface Shown extends UserWithPassword {
  reason: 'created' | 'reset';
}

/** The generated password, once, with a copy button; gone when dismissed or the page is left. */
function GeneratedPassword({ shown, onDismiss }: { shown: Shown; onDismiss: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(shown.password).then(() => setCopied(true));
  };
  return (
    <div className="notice notice-success password-notice" role="status" data-testid="generated-password">
      <div>
        <strong>
          {shown.reason === 'created'
            ? `Created ${shown.user.email} (${shown.user.role}).`
            : `New password for ${shown.user.email}; their sessions were ended.`}
        </strong>
        <p>
          Their password, shown this once:{' '}
          <code className="password" data-testid="generated-password-value">
            {shown.password}
          </code>
        </p>
        <p className="small">Hand it over privately. The console keeps only its hash and cannot show it again.</p>
      </div>
      <div className="notice-actions">
        <button type="button" className="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="button button-ghost" onClick={onDismiss}>
          Done
        </button>
      </div>
    </div>
  );
}

/** The form that adds a user: email and role; the console generates the password. */
function CreateUser({ onCreated }: { onCreated: (result: UserWithPassword) => void }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const create = useMutation({
    mutationFn: () => api.createUser(email.trim(), role),
    onSuccess: (result) => {
      setEmail('');
      setRole('viewer');
      onCreated(result);
      void queryClient.invalidateQueries({ queryKey: USERS_KEY });
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!create.isPending && email.trim()) create.mutate();
  };
  return (
    <form className="panel create-user" onSubmit={submit} data-testid="create-user">
      <h2 className="panel-title">Add a user</h2>
      <div className="toolbar">
        <input
          className="search"
          type="email"
          required
          placeholder="name@example.com"
          aria-label="Email"
          data-testid="new-user-email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
        <select aria-label="Role" data-testid="new-user-role" value={role} onChange={(event) => setRole(event.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <button type="submit" className="button button-primary" data-testid="new-user-submit" disabled={create.isPending || !email.trim()}>
          {create.isPending ? <Spinner label="Creating" /> : null}
          Create user
        </button>
      </div>
      <p className="muted small">
        Viewers read; operators also reconcile; admins also manage users and read the audit trail. A password is generated and shown once.
      </p>
      {create.isError && (
        <div className="notice notice-danger" role="alert" data-testid="create-user-error">
          The user was not created: {errorMessage(create.error)}
        </div>
      )}
    </form>
  );
}

/** One user's row: role, status and the actions an admin may take (none that would lock themself out). */
function UserRow({ user, me, now, onPassword }: { user: ConsoleUser; me: SessionUser; now: number; onPassword: (result: UserWithPassword) => void }) {
  const queryClient = useQueryClient();
  const self = user.email === me.email;
  const done = () => void queryClient.invalidateQueries({ queryKey: USERS_KEY });
  const update = useMutation({ mutationFn: (change: { role?: Role; disabled?: boolean }) => api.updateUser(user.email, change), onSettled: done });
  const reset = useMutation({ mutationFn: () => api.resetPassword(user.email), onSuccess: onPassword, onSettled: done });
  const busy = update.isPending || reset.isPending;
  const error = update.error ?? reset.error;

  const toggle = () => {
    if (!user.disabled && !window.confirm(`Disable ${user.email}? Their sessions end at once.`)) return;
    update.mutate({ disabled: !user.disabled });
  };
  const resetPassword = () => {
    if (window.confirm(`Give ${user.email} a new password? Their sessions end at once and the old password stops working.`)) reset.mutate();
  };

  return (
    <tr data-testid="user-row" data-email={user.email} className={user.disabled ? 'row-disabled' : undefined}>
      <td>
        <span>{user.email}</span>
        {self && <span className="muted small">you</span>}
      </td>
      <td>
        <select
          aria-label={`Role of ${user.email}`}
          data-testid="user-role"
          value={user.role}
          disabled={busy || self}
          title={self ? 'Another admin can change your role' : undefined}
          onChange={(event) => update.mutate({ role: event.target.value as Role })}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </td>
      <td>{user.disabled ? <Badge tone="neutral">Disabled</Badge> : <Badge tone="success">Enabled</Badge>}</td>
      <td title={formatDateTime(user.createdAt)}>
        <span className="small">{formatDateTime(user.createdAt)}</span>
      </td>
      <td title={user.lastSignInAt ? formatDateTime(user.lastSignInAt) : undefined}>
        {user.lastSignInAt ? <span className="small">{formatAge(user.lastSignInAt, now)}</span> : <span className="muted small">never</span>}
      </td>
      <td>
        <div className="row-actions">
          <button type="button" className="button" data-testid="user-toggle" disabled={busy || self} onClick={toggle}>
            {user.disabled ? 'Enable' : 'Disable'}
          </button>
          <button type="button" className="button" data-testid="user-reset" disabled={busy || self} onClick={resetPassword}>
            Reset password
          </button>
          <Link href={auditHref({ targetKind: 'user', targetId: user.email })} className="small">
            History
          </Link>
          {error && (
            <span className="row-error small" role="alert" data-testid="user-error">
              {errorMessage(error)}
            </span>
          )}
        </div>
      </td>
    </tr>
  );
}

/** The console's users (admins): add one with a generated password, change roles, disable or enable, reset a password. */
export function UsersPage({ me }: { me: SessionUser }) {
  const users = useQuery({ queryKey: USERS_KEY, queryFn: () => api.users() });
  const [shown, setShown] = useState<Shown | null>(null);
  const headers = ['Email', 'Role', 'Status', 'Created', 'Last sign-in', ''];

  return (
    <section>
      <div className="page-head">
        <h1>Users</h1>
        {users.isFetching && !users.isPending && <span className="muted small">Refreshing…</span>}
      </div>
      {shown && <GeneratedPassword shown={shown} onDismiss={() => setShown(null)} />}
      <CreateUser onCreated={(result) => setShown({ ...result, reason: 'created' })} />

      {users.isError && !users.data ? (
        <ErrorPanel error={users.error} onRetry={() => void users.refetch()} />
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="users-table" aria-busy={users.isPending}>
            <thead>
              <tr>
                {headers.map((header, index) => (
                  <th key={index}>{header}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {users.isPending &&
                Array.from({ length: 4 }, (_, index) => (
                  <tr key={index} className="row-skeleton" aria-hidden="true">
                    {headers.map((_header, cell) => (
                      <td key={cell}>
                        <span className="skeleton" />
                      </td>
                    ))}
                  </tr>
                ))}
              {users.data?.items.map((user) => (
                <UserRow key={user.email} user={user} me={me} now={users.dataUpdatedAt} onPassword={(result) => setShown({ ...result, reason: 'reset' })} />
              ))}
            </tbody>
          </table>
          {users.data && users.data.items.length === 0 && <EmptyState title="No users">Create the first admin with ./settle console-user.</EmptyState>}
        </div>
      )}
      <p className="muted small list-note">
        You cannot disable, demote or reset your own account, and the last enabled admin stays an admin: ask another admin. Every change is recorded in the{' '}
        <Link href="/audit">audit trail</Link>.
      </p>
    </section>
  );
}
