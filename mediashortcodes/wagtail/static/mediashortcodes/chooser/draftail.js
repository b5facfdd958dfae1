/* The rich-text feature "media": a toolbar button opens the media chooser and inserts the
 * chosen image or video as an atomic block whose entity is saved as
 * <embed embedtype="media_image" id=".." format=".."/> (or media_video). */
(function () {
  'use strict';

  var React = window.React;
  var DraftJS = window.DraftJS;
  var h = React.createElement;

  class MediaSource extends React.Component {
    componentDidMount() {
      var props = this.props;
      var done = false;
      var closed = function () {
        window.jQuery(document.body).off('hidden.bs.modal', closed);
        if (!done) props.onClose();
      };
      window.jQuery(document.body).on('hidden.bs.modal', closed);
      var modal = new window.MediaShortcodesChooserModal(props.entityType.chooserUrl);
      modal.open({}, function (data) {
        done = true;
        var content = props.editorState.getCurrentContent().createEntity(
          props.entityType.type,
          'IMMUTABLE',
          { embedtype: 'media_' + data.kind, id: String(data.id) },
        );
        var entityKey = content.getLastCreatedEntityKey();
        var withContent = DraftJS.EditorState.set(props.editorState, { currentContent: content });
        props.onComplete(DraftJS.AtomicBlockUtils.insertAtomicBlock(withContent, entityKey, ' '));
      });
    }

    render() {
      return null;
    }
  }

  function MediaBlock(props) {
    var blockProps = props.blockProps || {};
    var entity = blockProps.entity;
    var data = entity ? entity.getData() : {};
    var kind = data.embedtype === 'media_video' ? 'Video' : 'Image';
    var template = blockProps.entityType && blockProps.entityType.previewUrl;
    var preview = template && /^[0-9]+$/.test(data.id) ? template.replace('{id}', data.id) : '';
    var label = kind + ' #' + data.id + (data.format ? ' (' + data.format + ')' : '');
    return h(
      'div',
      { className: 'mediashortcodes-entity', 'data-mediashortcodes-entity': kind.toLowerCase(), contentEditable: false },
      preview ? h('img', { src: preview, alt: '' }) : null,
      h('span', null, label),
      blockProps.onRemoveEntity
        ? h('button', { type: 'button', className: 'button button-small button-secondary', onClick: blockProps.onRemoveEntity }, 'Remove')
        : null,
    );
  }

  window.draftail.registerPlugin({ type: 'MEDIA', source: MediaSource, block: MediaBlock }, 'entityTypes');
})();
