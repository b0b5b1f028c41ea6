import type { RuleInfo } from '../rule-info.js';

/** The rule codes of messages and their interactive form elements (rules/rules.ts joins the tables). */
export const MESSAGE_RULES = [
  // messages
  {
    code: 'message.required',
    severity: 'error',
    entity: 'messages',
    description: 'sender, receiverType, receiver or sentAt is missing (the field says which).',
  },
  {
    code: 'message.receiver-type',
    severity: 'error',
    entity: 'messages',
    description: 'receiverType is not user or group.',
  },
  {
    code: 'message.category',
    severity: 'error',
    entity: 'messages',
    description:
      'category is not message or custom (missing means message; action and call messages cannot be imported).',
  },
  {
    code: 'message.type',
    severity: 'error',
    entity: 'messages',
    description:
      'type is missing, or not text, image, file, audio or video when category is message, or empty when category ' +
      'is custom.',
  },
  {
    code: 'message.text.empty',
    severity: 'error',
    entity: 'messages',
    description: 'A text message has no data.text, or it is not a string, or only whitespace (ERR_EMPTY_MESSAGE_TEXT).',
  },
  {
    code: 'message.attachments.missing',
    severity: 'warning',
    entity: 'messages',
    description: 'An image, file, audio or video message has no data.attachments: it would import as an empty bubble.',
  },
  {
    code: 'message.too-large',
    severity: 'error',
    entity: 'messages',
    description: 'The whole message serialises to more than 65,536 characters of JSON.',
  },
  {
    code: 'message.mentions.too-many',
    severity: 'error',
    entity: 'messages',
    description: 'data.text mentions more than 10 distinct users as `<@uid:...>`.',
  },
  {
    code: 'timestamp.before-sent',
    severity: 'warning',
    entity: 'messages',
    description: 'deliveredAt or readAt is earlier than sentAt.',
  },
  { code: 'data.not-object', severity: 'error', entity: 'messages', description: 'data is not a JSON object.' },
  {
    code: 'data.too-large',
    severity: 'error',
    entity: 'messages',
    description: 'data serialises to more than 10,240 bytes of UTF-8 JSON (attachment files are counted apart).',
  },
  {
    code: 'attachments.not-array',
    severity: 'error',
    entity: 'messages',
    description: 'data.attachments is not an array.',
  },
  {
    code: 'attachment.not-object',
    severity: 'error',
    entity: 'messages',
    description: 'An element of data.attachments is not an object.',
  },
  {
    code: 'attachment.required',
    severity: 'error',
    entity: 'messages',
    description: 'An attachment lacks url, name, mimeType or extension as a non-empty string (the field says which).',
  },
  {
    code: 'attachment.url.invalid',
    severity: 'error',
    entity: 'messages',
    description: "An attachment's url is not an absolute http(s) URL without whitespace.",
  },
  {
    code: 'attachment.size.invalid',
    severity: 'error',
    entity: 'messages',
    description: "An attachment's size is neither a non-negative integer nor a string of digits.",
  },
  {
    code: 'attachment.size.too-large',
    severity: 'error',
    entity: 'messages',
    description: "An attachment's size is over 104,857,600 bytes (100 MB).",
  },
  {
    code: 'ref.message.sender',
    severity: 'error',
    entity: 'messages',
    description:
      'sender is not a user of the export (checked only when users are configured; satisfied by a matching ' +
      'senderUserDetails). The user holds back what names it: one line, at the first, with the count.',
  },
  {
    code: 'ref.message.receiver',
    severity: 'error',
    entity: 'messages',
    description:
      'receiver is not a user (receiverType user) or group (receiverType group) of the export (checked only when ' +
      'that entity is configured; satisfied by matching receiverUserDetails/receiverGroupDetails). The user or ' +
      'group holds back what names it: one line, at the first, with the count.',
  },
  // interactive form elements, anywhere a `formFields` key sits inside data
  {
    code: 'form.fields.not-array',
    severity: 'error',
    entity: 'messages',
    description: 'A formFields value inside data is not an array.',
  },
  {
    code: 'form.element.not-object',
    severity: 'error',
    entity: 'messages',
    description: 'A form element is not an object.',
  },
  {
    code: 'form.element-type',
    severity: 'error',
    entity: 'messages',
    description:
      'elementType is missing or not one of label, textInput, button, checkbox, dropdown, radio, singleSelect, ' +
      'dateTime.',
  },
  {
    code: 'form.element-id',
    severity: 'error',
    entity: 'messages',
    description: 'elementId is missing, empty or not a string.',
  },
  {
    code: 'form.element-id.duplicate',
    severity: 'error',
    entity: 'messages',
    description: 'Two elements of one form share an elementId.',
  },
  {
    code: 'form.field.required',
    severity: 'error',
    entity: 'messages',
    description: "A required element field is missing or empty: a label's text, a checkbox's label.",
  },
  {
    code: 'form.field.type',
    severity: 'error',
    entity: 'messages',
    description:
      'An element field (or an apiAction field, or placeholder.text) has the wrong JSON type for its element table ' +
      'entry.',
  },
  {
    code: 'form.option',
    severity: 'error',
    entity: 'messages',
    description: 'An option is not an object with string value and string label.',
  },
  {
    code: 'form.default-value',
    severity: 'error',
    entity: 'messages',
    description: "defaultValue (or one of a checkbox's defaultValue strings) is not among the element's option values.",
  },
  {
    code: 'form.action.type',
    severity: 'error',
    entity: 'messages',
    description:
      "A button action's actionType is not apiAction, urlNavigation, deepLinkAction or customAction (missing means " +
      'urlNavigation).',
  },
  {
    code: 'form.action.url',
    severity: 'error',
    entity: 'messages',
    description: 'A urlNavigation or deepLinkAction action (or one without actionType) lacks a valid absolute URL.',
  },
  {
    code: 'form.date',
    severity: 'error',
    entity: 'messages',
    description: "A dateTime element's from or to is not a real calendar date shaped YYYY-MM-DD.",
  },
  {
    code: 'form.date.range',
    severity: 'error',
    entity: 'messages',
    description: "A dateTime element's from is after its to.",
  },
  {
    code: 'form.timezone',
    severity: 'error',
    entity: 'messages',
    description: "A dateTime element's timezoneCode is not an IANA time zone this runtime knows.",
  },
] as const satisfies readonly RuleInfo[];
