import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal dialog: the platform's `<dialog>`, opened with `showModal()` when it mounts (the page
 * behind is inert, focus stays inside, Escape closes it). Mount it to open it; `onClose` is
 * called when the person closes it (Escape, or a button of the dialog calling it), and the parent
 * then unmounts it.
 */
export function Dialog({ title, onClose, children, testId }: { title: string; onClose: () => void; children: ReactNode; testId?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    // Not closed on unmount: removing a dialog from the document ends it (and a close event then would close the next one).
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <div className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="button button-ghost button-small" aria-label="Close" onClick={onClose}>
          ✕
        </button>
      </div>
      {children}
    </dialog>
  );
}
