/* The media chooser in the Wagtail admin: the modal's steps, the field widget, and its
 * telepath constructor for StreamField blocks. Plain JS over Wagtail's ModalWorkflow and
 * Chooser: no build step. The modal only ever loads admin URLs (the server browses the
 * service and passes previews through). */
(function () {
  'use strict';

  var NS = '.mediashortcodes';
  var ONLOAD = {
    choose: function (modal) {
      var body = modal.body;
      body.off(NS);
      body.on('click' + NS, 'a[data-mediashortcodes-nav], a[data-mediashortcodes-choice]', function (event) {
        event.preventDefault();
        modal.loadUrl(this.href);
      });
      body.on('submit' + NS, 'form.mediashortcodes-chooser__search', function (event) {
        event.preventDefault();
        modal.loadUrl(this.action, window.jQuery(this).serialize());
      });
      var search = body.find('#mediashortcodes-q');
      if (search.length) search.trigger('focus');
    },
    chosen: function (modal, json) {
      modal.respond('chosen', json.result);
      modal.close();
    },
  };

  function failed() {
    window.alert('The media chooser could not be loaded: the Wagtail admin did not answer. Reload the page and try again.');
  }

  class MediaChooserModal {
    constructor(url) {
      this.url = url;
    }

    open(opts, callback) {
      var params = opts && opts.accept ? { accept: opts.accept } : {};
      return window.ModalWorkflow({
        url: this.url,
        urlParams: params,
        onload: ONLOAD,
        onError: failed,
        responses: { chosen: callback },
      });
    }
  }
  window.MediaShortcodesChooserModal = MediaChooserModal;

  function showPreview(chooserElement, state) {
    var box = chooserElement.querySelector('.chooser__preview');
    if (!box) return;
    var old = box.querySelector('img.mediashortcodes-preview');
    if (old) old.remove();
    if (state && state.preview) {
      var img = document.createElement('img');
      img.className = 'mediashortcodes-preview';
      img.alt = '';
      img.src = state.preview;
      box.appendChild(img);
    }
  }

  if (window.Chooser) {
    class MediaFileChooser extends window.Chooser {
      getModalOptions() {
        return { accept: this.opts.accept };
      }

      openChooserModal() {
        if (!this.modal) this.modal = new MediaChooserModal(this.opts.modalUrl || this.chooserElement.dataset.chooserUrl);
        this.modal.open(this.getModalOptions(), (data) => this.setStateFromModalData(data));
      }

      renderState(state) {
        super.renderState(state);
        showPreview(this.chooserElement, state);
      }
    }
    window.MediaShortcodesFileChooser = MediaFileChooser;

    var Base = window.telepath && window.telepath.constructors['wagtail.admin.widgets.Chooser'];
    if (Base && !window.telepath.constructors['mediashortcodes.widgets.MediaFileChooser']) {
      class MediaFileChooserFactory extends Base {
        widgetClass = MediaFileChooser;
        chooserModalClass = MediaChooserModal;
      }
      window.telepath.register('mediashortcodes.widgets.MediaFileChooser', MediaFileChooserFactory);
    }
  }
})();
