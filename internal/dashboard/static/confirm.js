// confirmDialog asks before an operation that cannot be taken back (a
// delete, a delivered webhook sent again): a modal <dialog> with the
// question, the operation's button and Cancel (Escape cancels too). It
// resolves true only for the operation's button; the focus starts on
// Cancel.
import { el } from './dom.js';

export function confirmDialog(question, action) {
  return new Promise(resolve => {
    const ok = el('button', { type: 'button', class: 'danger', value: 'ok' }, action);
    const cancel = el('button', { type: 'button', class: 'secondary', value: 'cancel' }, 'Cancel');
    const dialog = el('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-question' },
      el('p', { id: 'confirm-question' }, question), el('div', { class: 'actions' }, ok, cancel));
    let answer = false;
    ok.addEventListener('click', () => { answer = true; dialog.close(); });
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => { dialog.remove(); resolve(answer); });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
