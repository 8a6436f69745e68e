// QR Manager portal: progressive enhancement only. Every page works without this file.
'use strict';

/** How often a running batch's progress is asked for. */
const BATCH_POLL_MS = 1000;
/** The pause in typing after which the playground's live preview is drawn. */
const PREVIEW_DEBOUNCE_MS = 400;

/** Posts a chosen file as the request body, as the API takes it, with the page's CSRF token in a header. */
function postFile(url, file) {
  return fetch(url, {
    method: 'POST',
    body: file,
    headers: {
      'content-type': file.type || 'application/octet-stream',
      'x-csrf-token': document.querySelector('meta[name="csrf-token"]').content,
    },
    credentials: 'same-origin',
  });
}

document.addEventListener('DOMContentLoaded', () => {
  // A narrow screen scrolls the nav sideways: start it with the current page's link in view.
  const current = document.querySelector('.topbar nav a[aria-current="page"]');
  const nav = current?.parentElement;
  if (nav && nav.scrollWidth > nav.clientWidth) {
    nav.scrollLeft = current.offsetLeft - nav.offsetLeft - (nav.clientWidth - current.offsetWidth) / 2;
  }

  // Copy buttons: shown only when the Clipboard API is there to back them.
  for (const button of document.querySelectorAll('button.copy[data-copy-target]')) {
    const target = document.getElementById(button.dataset.copyTarget);
    if (!target || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(target.value);
        button.textContent = 'Copied';
      } catch {
        target.select();
        button.textContent = 'Press Ctrl+C';
      }
      setTimeout(() => (button.textContent = 'Copy'), 2000);
    });
  }

  // Destructive forms ask first.
  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }

  // Logo upload: the file itself is the body (as in the API), with the page's CSRF token in a header.
  const upload = document.getElementById('logo-upload');
  if (upload) {
    upload.addEventListener('submit', async (event) => {
      event.preventDefault();
      const file = upload.querySelector('input[type="file"]').files[0];
      const error = document.getElementById('logo-error');
      if (!file) return;
      // The name goes in the query, as in the API: the body is the image itself.
      const name = upload.querySelector('input[name="name"]').value.trim();
      const response = await postFile(name ? `${upload.action}?name=${encodeURIComponent(name)}` : upload.action, file);
      if (response.ok) {
        window.location.assign(`${upload.action}?notice=uploaded`);
        return;
      }
      const problem = await response.json().catch(() => ({}));
      error.textContent = problem.error || problem.detail || 'The upload failed.';
      error.hidden = false;
    });
  }

  // Playground: the example follows the chosen type, and results replace the panel without a reload.
  const playground = document.getElementById('playground-form');
  if (playground) {
    const type = playground.querySelector('#type');
    const content = playground.querySelector('#content');
    // The chosen type's own fields (from the API's schemas) show; the others hide and are not posted.
    const showFields = () => {
      let structured = false;
      for (const group of playground.querySelectorAll('fieldset[data-content-type]')) {
        const chosen = group.dataset.contentType === type.value;
        group.hidden = !chosen;
        group.disabled = !chosen;
        structured ||= chosen;
      }
      playground.querySelector('[data-ready-payload]')?.toggleAttribute('hidden', !structured);
    };
    showFields();
    type.addEventListener('change', () => {
      content.placeholder = type.selectedOptions[0]?.dataset.example ?? '';
      showFields();
    });

    // The live preview: the form as it stands, drawn small after a pause in typing, not counted against the quota.
    const previewCard = document.getElementById('preview-card');
    const previewImage = document.getElementById('live-preview');
    const previewStatus = document.getElementById('preview-status');
    let previewTimer;
    let previewSeq = 0;
    const drawPreview = async () => {
      const seq = ++previewSeq;
      const token = document.querySelector('meta[name="csrf-token"]').content;
      try {
        const response = await fetch(previewCard.dataset.url, {
          method: 'POST',
          body: new URLSearchParams(new FormData(playground)),
          headers: { 'x-csrf-token': token, accept: 'image/png, application/problem+json' },
          credentials: 'same-origin',
        });
        if (seq !== previewSeq) return; // a later preview is on its way
        if (!response.ok) {
          const problem = await response.json().catch(() => ({}));
          previewStatus.textContent = problem.detail || 'No preview for this form.';
          previewImage.classList.add('stale');
          return;
        }
        const reader = new FileReader();
        reader.onload = () => {
          if (seq !== previewSeq) return;
          previewImage.src = reader.result;
          previewImage.hidden = false;
          previewImage.classList.remove('stale');
          previewStatus.textContent = 'Preview of the form as it stands (not counted against your quota).';
        };
        reader.readAsDataURL(await response.blob());
      } catch {
        previewStatus.textContent = 'The preview could not be drawn just now.';
      }
    };
    if (previewCard) {
      previewCard.hidden = false;
      const schedule = () => {
        clearTimeout(previewTimer);
        previewTimer = setTimeout(drawPreview, PREVIEW_DEBOUNCE_MS);
      };
      playground.addEventListener('input', schedule);
      playground.addEventListener('change', schedule);
      schedule();
    }
    playground.addEventListener('submit', async (event) => {
      if (event.submitter?.hasAttribute('data-save-design')) return; // a plain post: the page says what was saved
      event.preventDefault();
      const button = playground.querySelector('button[type="submit"]');
      button.disabled = true;
      try {
        const response = await fetch(playground.action, {
          method: 'POST',
          body: new URLSearchParams(new FormData(playground)),
          credentials: 'same-origin',
        });
        const page = new DOMParser().parseFromString(await response.text(), 'text/html');
        for (const id of ['playground-result']) {
          const fresh = page.getElementById(id);
          if (fresh) document.getElementById(id).replaceWith(fresh);
        }
        // Errors are shown above the form, as the page without JS would show them.
        const error = page.querySelector('#playground-form')?.parentElement.querySelector('.banner.error');
        playground.parentElement.querySelector('.banner.error')?.remove();
        if (error) playground.before(error);
      } catch {
        playground.submit();
      } finally {
        button.disabled = false;
      }
    });
  }

  // Reading codes back: the answer's result panel replaces ours. A chosen file is posted as the body itself (as the API
  // takes it) with the page's CSRF token in a header; "Read it back" posts the generated image's form without a reload.
  const decodeResult = (html) => {
    const fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('decode-result');
    if (fresh) document.getElementById('decode-result')?.replaceWith(fresh);
  };
  const decodeUpload = document.getElementById('decode-upload');
  if (decodeUpload) {
    decodeUpload.addEventListener('submit', async (event) => {
      event.preventDefault();
      const file = decodeUpload.querySelector('input[type="file"]').files[0];
      if (!file) return;
      const response = await postFile(decodeUpload.action, file);
      decodeResult(await response.text());
    });
  }
  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (form?.id !== 'decode-generated') return;
    event.preventDefault();
    const response = await fetch(form.action, {
      method: 'POST',
      body: new URLSearchParams(new FormData(form)),
      credentials: 'same-origin',
    });
    decodeResult(await response.text());
  });

  // Batches: while one runs, its bar, status and summary are polled and updated in place (the page never reloads, so
  // the CSV being typed survives); a finished batch's Cancel becomes its Download link.
  const batchTable = document.querySelector('table.batches[data-progress-url]');
  const running = () => [...(batchTable?.querySelectorAll('tr[data-batch][data-running]') ?? [])];
  const pollBatches = async () => {
    const rows = running();
    if (rows.length === 0) return;
    const url =
      `${batchTable.dataset.progressUrl}?ids=` +
      `${rows.map((row) => encodeURIComponent(row.dataset.batch)).join(',')}`;
    try {
      const response = await fetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } });
      if (!response.ok) return; // signed out, or the server is gone: stop polling rather than retry forever
      const { items } = await response.json();
      for (const batch of items)
        showBatch(
          rows.find((row) => row.dataset.batch === batch.id),
          batch,
        );
    } catch {
      return;
    }
    setTimeout(pollBatches, BATCH_POLL_MS);
  };
  const showBatch = (row, batch) => {
    if (!row) return;
    const bar = row.querySelector('progress');
    bar.max = batch.total;
    bar.value = batch.done;
    bar.className = `batch-${batch.status}`;
    bar.setAttribute('aria-label', batch.label);
    bar.textContent = `${batch.done} / ${batch.total}`;
    const badge = row.querySelector('[data-status]');
    badge.className = `badge batch-${batch.status}`;
    badge.textContent = batch.status;
    row.querySelector('[data-summary]').textContent = batch.summary;
    if (!batch.finished) return;
    delete row.dataset.running;
    const link = document.createElement('a');
    link.href = batch.archiveUrl;
    link.download = '';
    link.textContent = 'Download ZIP';
    row.querySelector('td.actions').replaceChildren(link);
  };
  if (batchTable) setTimeout(pollBatches, BATCH_POLL_MS);

  // Batches: a chosen CSV file is read into the form's text box, which is what the form posts.
  for (const input of document.querySelectorAll('[data-csv-file]')) {
    input.addEventListener('change', async () => {
      const file = input.files?.[0];
      const textarea = input.closest('form')?.querySelector('textarea[name="csv"]');
      if (file && textarea) textarea.value = await file.text();
    });
  }
});
