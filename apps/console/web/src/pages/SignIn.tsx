import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { useSignIn } from '../api/session';
import { Spinner } from '../components/Feedback';

/** Why a sign-in failed, for people: wrong credentials, locked for a while, or the API unreachable. */
export function signInErrorMessage(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Signing in failed. Try again.';
  if (error.code === 'CONSOLE.INVALID_CREDENTIALS' || error.status === 401) return 'The email or password is not correct.';
  if (error.code === 'CONSOLE.LOGIN_LOCKED' || error.status === 429) {
    const minutes = error.retryAfterSeconds ? Math.max(1, Math.ceil(error.retryAfterSeconds / 60)) : null;
    return `Too many failed attempts for this email. Try again ${minutes ? `in ${minutes} minute${minutes === 1 ? '' : 's'}` : 'later'}.`;
  }
  if (error.status === 400) return 'Enter an email address and a password.';
  if (error.status === 0) return error.message;
  return `Signing in failed (${error.code}). Try again in a moment.`;
}

/** The sign-in page: email and password, and what went wrong. */
export function SignInPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useSignIn();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (signIn.isPending) return;
    signIn.mutate({ email: email.trim(), password });
  };

  return (
    <main className="signin">
      <form className="signin-card" onSubmit={submit}>
        <div className="brand brand-large">
          <span className="brand-mark" aria-hidden="true">
            S
          </span>
          Settle Console
        </div>
        <p className="muted">Sign in with your operations account.</p>
        <label className="field">
          <span>Email</span>
          <input
            data-testid="login-email"
            type="email"
            autoComplete="username"
            required
            autoFocus
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </label>
        <label className="field">
          <span>Password</span>
          <input
            data-testid="login-password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </label>
        {signIn.isError && (
          <p className="form-error" role="alert" data-testid="login-error">
            {signInErrorMessage(signIn.error)}
          </p>
        )}
        <button data-testid="login-submit" type="submit" className="button button-primary button-block" disabled={signIn.isPending}>
          {signIn.isPending ? <Spinner label="Signing in" /> : null}
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
