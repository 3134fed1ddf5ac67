import { type FormEvent, type ReactNode, useEffect, useId, useRef } from 'react';

/**
 * A modal dialog on the browser's own <dialog>: focus moves into it and stays there, Escape closes
 * it, and focus returns to what opened it.
 */
export function Dialog({
  title,
  description,
  children,
  footer,
  onClose,
  onSubmit,
}: {
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  footer: ReactNode;
  onClose: () => void;
  /** When given, the body is a form and Enter submits it. */
  onSubmit?: (event: FormEvent<HTMLFormElement>) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const content = (
    <>
      <div className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        {description && <p id={descriptionId}>{description}</p>}
      </div>
      {children && <div className="dialog-body">{children}</div>}
      <div className="dialog-foot">{footer}</div>
    </>
  );
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {onSubmit ? (
        <form
          method="post"
          onSubmit={(event) => {
            event.preventDefault();
            onSubmit(event);
          }}
        >
          {content}
        </form>
      ) : (
        content
      )}
    </dialog>
  );
}
