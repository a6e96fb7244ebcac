/** A failed action's message, read out by screen readers as it appears; nothing when there is none. */
export function ErrorAlert({ message }: { message: string | null | undefined }) {
  return message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;
}
