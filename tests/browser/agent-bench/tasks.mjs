// The agent benchmark's tasks (docs/agent-benchmark.md): a page, a goal, the steps a scripted
// policy takes (each names its target by role and name, as an agent reading the goal would), and
// the page-state predicate that says the task was done. The classes are issue 30's.
//
// A step is {action: 'click'|'hover', target}, {action: 'type', target, text, submit?},
// {action: 'select', target, label} or {action: 'press', key}. A target is {name, roles?,
// inLine?} (snapshot-formats.mjs, findTarget): no roles means "whatever the snapshot calls it",
// for things that have no role of their own (a div with a click listener).

const TEXT_FIELD = ['textbox', 'searchbox', 'combobox'];
const BUTTON = ['button'];
const DONE = 'window.taskState?.done === true';
const own = (page) => `/pages/agent-tasks/${page}.html`;
const state = (expression) => `window.fixtureState?.${expression}`;

/** The hand-made pages of fixtures/pages/agent-tasks/. */
const HAND_MADE = [
  {
    id: 'div-rows',
    page: own('div-rows'),
    class: 'script-listener',
    goal: 'Open the contact Doroteya',
    steps: [{ action: 'click', target: { name: 'Doroteya' } }],
    success: DONE,
  },
  {
    id: 'div-submit',
    page: own('div-submit'),
    class: 'script-listener',
    goal: 'Subscribe ada@example.com to the newsletter',
    steps: [
      { action: 'type', target: { name: 'Email', roles: TEXT_FIELD }, text: 'ada@example.com' },
      { action: 'click', target: { name: 'Subscribe' } },
    ],
    success: DONE,
  },
  {
    id: 'autocomplete',
    page: own('autocomplete'),
    class: 'script-listener',
    goal: 'Choose Paris as the city, from the suggestions',
    steps: [
      { action: 'type', target: { name: 'City', roles: TEXT_FIELD }, text: 'Par' },
      { action: 'click', target: { name: 'Paris' } },
    ],
    success: DONE,
  },
  {
    id: 'folder-tree',
    page: own('folder-tree'),
    class: 'expandable-list',
    goal: 'Select Chas in the folder Projects',
    steps: [
      { action: 'click', target: { name: 'Projects' } },
      { action: 'click', target: { name: 'Chas' } },
    ],
    success: DONE,
  },
  {
    id: 'hover-menu',
    page: own('hover-menu'),
    class: 'hover',
    goal: 'Sign out from the Account menu',
    steps: [
      { action: 'hover', target: { name: 'Account', roles: BUTTON } },
      { action: 'click', target: { name: 'Sign out', roles: ['menuitem'] } },
    ],
    success: DONE,
  },
  {
    id: 'clickable-word',
    page: own('clickable-word'),
    class: 'word-in-text',
    goal: 'Open the terms',
    steps: [{ action: 'click', target: { name: 'terms' } }],
    success: DONE,
  },
  {
    id: 'css-icons',
    page: own('css-icons'),
    class: 'css-icon',
    goal: 'Retweet the post by @tora',
    steps: [{ action: 'click', target: { name: /retweet/i, inLine: true } }],
    success: DONE,
  },
  {
    id: 'focus-field',
    page: own('focus-field'),
    class: 'focus',
    goal: 'Verify the code 4711',
    steps: [
      { action: 'type', target: { name: 'Code', roles: TEXT_FIELD }, text: '4711' },
      { action: 'click', target: { name: 'Verify', roles: BUTTON } },
    ],
    success: DONE,
  },
  {
    id: 'shadow-checkbox',
    page: own('shadow-checkbox'),
    class: 'covered-by-own-part',
    goal: 'Accept the terms and continue',
    steps: [
      { action: 'click', target: { name: 'Accept terms', roles: ['checkbox'] } },
      { action: 'click', target: { name: 'Continue', roles: BUTTON } },
    ],
    success: DONE,
  },
  {
    id: 'login-form',
    page: own('login-form'),
    class: 'form',
    goal: 'Sign in as ada with the password lovelace',
    steps: [
      { action: 'type', target: { name: 'Username', roles: TEXT_FIELD }, text: 'ada' },
      { action: 'type', target: { name: 'Password', roles: TEXT_FIELD }, text: 'lovelace' },
      { action: 'click', target: { name: 'Sign in', roles: BUTTON } },
    ],
    success: DONE,
  },
  {
    id: 'native-select',
    page: own('native-select'),
    class: 'select',
    goal: 'Save France as the country',
    steps: [
      { action: 'select', target: { name: 'Country', roles: ['combobox', 'listbox'] }, label: 'France' },
      { action: 'click', target: { name: 'Save', roles: BUTTON } },
    ],
    success: DONE,
  },
  {
    id: 'aria-combobox',
    page: own('aria-combobox'),
    class: 'select',
    goal: 'Choose the size Large',
    steps: [
      { action: 'click', target: { name: 'Size', roles: ['combobox'] } },
      { action: 'click', target: { name: 'Large', roles: ['option'] } },
    ],
    success: DONE,
  },
  {
    id: 'dialog',
    page: own('dialog'),
    class: 'dialog',
    goal: 'Delete the file, confirming in the dialog',
    steps: [
      { action: 'click', target: { name: 'Delete file', roles: BUTTON } },
      { action: 'click', target: { name: 'Delete', roles: BUTTON } },
    ],
    success: DONE,
  },
  {
    id: 'tabs',
    page: own('tabs'),
    class: 'tabs',
    goal: 'Download the invoice from the Billing tab',
    steps: [
      { action: 'click', target: { name: 'Billing', roles: ['tab'] } },
      { action: 'click', target: { name: 'Download invoice', roles: BUTTON } },
    ],
    success: DONE,
  },
  {
    id: 'spa-route',
    page: own('spa-route'),
    class: 'spa-route',
    goal: 'Turn on Dark mode in Settings',
    steps: [
      { action: 'click', target: { name: 'Settings', roles: ['link'] } },
      { action: 'click', target: { name: 'Dark mode', roles: ['checkbox'] } },
    ],
    success: DONE,
  },
  {
    id: 'paging-list',
    page: own('paging-list'),
    class: 'paging',
    goal: 'Open Item 27 (ten items per page)',
    steps: [
      { action: 'click', target: { name: 'Next page', roles: BUTTON } },
      { action: 'click', target: { name: 'Next page', roles: BUTTON } },
      { action: 'click', target: { name: 'Item 27', roles: BUTTON } },
    ],
    success: DONE,
  },
  {
    id: 'iframe-form',
    page: own('iframe-form'),
    class: 'cross-origin-frame',
    goal: 'Send the name Grace from the contact form',
    steps: [
      { action: 'type', target: { name: 'Your name', roles: TEXT_FIELD }, text: 'Grace' },
      { action: 'click', target: { name: 'Send', roles: BUTTON } },
    ],
    success: DONE,
  },
  {
    id: 'checkboxes',
    page: own('checkboxes'),
    class: 'form',
    goal: 'Turn on Email me and Text me, then apply',
    steps: [
      { action: 'click', target: { name: 'Email me', roles: ['checkbox'] } },
      { action: 'click', target: { name: 'Text me', roles: ['checkbox'] } },
      { action: 'click', target: { name: 'Apply', roles: BUTTON } },
    ],
    success: DONE,
  },
  {
    id: 'radio-group',
    page: own('radio-group'),
    class: 'form',
    goal: 'Choose express shipping and continue',
    steps: [
      { action: 'click', target: { name: 'Express shipping', roles: ['radio'] } },
      { action: 'click', target: { name: 'Continue', roles: BUTTON } },
    ],
    success: DONE,
  },
  {
    id: 'accordion',
    page: own('accordion'),
    class: 'disclosure',
    goal: 'Open the return policy under Shipping',
    steps: [
      { action: 'click', target: { name: 'Shipping', roles: BUTTON } },
      { action: 'click', target: { name: 'Return policy', roles: ['link'] } },
    ],
    success: DONE,
  },
  {
    id: 'comment-box',
    page: own('comment-box'),
    class: 'form',
    goal: 'Post the comment "Looks good"',
    steps: [
      { action: 'type', target: { name: 'Comment', roles: TEXT_FIELD }, text: 'Looks good' },
      { action: 'click', target: { name: 'Post comment', roles: BUTTON } },
    ],
    success: DONE,
  },
  {
    id: 'search-enter',
    page: own('search-enter'),
    class: 'form',
    goal: 'Search for allwright',
    steps: [{ action: 'type', target: { name: 'Search', roles: TEXT_FIELD }, text: 'allwright', submit: true }],
    success: DONE,
  },
  {
    id: 'load-more',
    page: own('load-more'),
    class: 'late-content',
    goal: 'Load more news and open Article 12',
    steps: [
      { action: 'click', target: { name: 'Load more', roles: BUTTON } },
      { action: 'click', target: { name: 'Article 12', roles: ['link'] } },
    ],
    success: DONE,
  },
  {
    id: 'switch',
    page: own('switch'),
    class: 'aria-widget',
    goal: 'Turn on notifications',
    steps: [{ action: 'click', target: { name: 'Notifications', roles: ['switch'] } }],
    success: DONE,
  },
  {
    id: 'table-rows',
    page: own('table-rows'),
    class: 'script-listener',
    goal: 'Open the invoice INV-1043',
    steps: [{ action: 'click', target: { name: 'INV-1043' } }],
    success: DONE,
  },
];

/** Tasks on the npm component-library fixtures (scripts/build-fixtures.mjs, docs/widgets.md). */
const COMPONENT_LIBRARIES = [
  {
    id: 'react-select',
    page: '/pages/actions/react-select.html',
    class: 'library-select',
    goal: 'Choose the flavour Vanilla (react-select)',
    steps: [
      { action: 'click', target: { name: 'Flavour', roles: ['combobox'] } },
      { action: 'click', target: { name: 'Vanilla', roles: ['option'] } },
    ],
    success: state("flavour === 'vanilla'"),
  },
  {
    id: 'mui-autocomplete',
    page: '/pages/actions/mui-autocomplete.html',
    class: 'library-select',
    goal: 'Choose the movie Vertigo (MUI Autocomplete)',
    steps: [
      { action: 'type', target: { name: 'Movie', roles: ['combobox'] }, text: 'Vert' },
      { action: 'click', target: { name: 'Vertigo', roles: ['option'] } },
    ],
    success: state("movie === 'Vertigo'"),
  },
  {
    id: 'radix-select',
    page: '/pages/actions/radix.html',
    class: 'library-select',
    goal: 'Choose the fruit Cherry (Radix Select)',
    steps: [
      { action: 'click', target: { name: 'Fruit', roles: ['combobox'] } },
      { action: 'click', target: { name: 'Cherry', roles: ['option'] } },
    ],
    success: state("fruit === 'cherry'"),
  },
  {
    id: 'radix-dialog',
    page: '/pages/actions/radix.html',
    class: 'dialog',
    goal: 'Set the display name Ada in the settings dialog (Radix Dialog)',
    steps: [
      { action: 'click', target: { name: 'Open settings', roles: BUTTON } },
      { action: 'type', target: { name: 'Display name', roles: TEXT_FIELD }, text: 'Ada' },
      { action: 'click', target: { name: 'Save settings', roles: BUTTON } },
    ],
    success: state("displayName === 'Ada'"),
  },
  {
    id: 'react-form',
    page: '/pages/actions/react-form.html',
    class: 'form',
    goal: 'Send the contact form as Ada Lovelace, ada@example.com, from France (React)',
    steps: [
      { action: 'type', target: { name: 'Full name', roles: TEXT_FIELD }, text: 'Ada Lovelace' },
      { action: 'type', target: { name: 'Email', roles: TEXT_FIELD }, text: 'ada@example.com' },
      { action: 'select', target: { name: 'Country', roles: ['combobox', 'listbox'] }, label: 'France' },
      { action: 'click', target: { name: 'Send', roles: BUTTON } },
    ],
    success: state(
      "submittedValues?.fullName === 'Ada Lovelace' && window.fixtureState.submittedValues.email === 'ada@example.com' && window.fixtureState.submittedValues.country === 'fr'",
    ),
  },
  {
    id: 'vue-form',
    page: '/pages/actions/vue-form.html',
    class: 'form',
    goal: 'Save the city Lyon (Vue)',
    steps: [
      { action: 'type', target: { name: 'City', roles: TEXT_FIELD }, text: 'Lyon' },
      { action: 'click', target: { name: 'Save', roles: BUTTON } },
    ],
    success: state("savedValues?.city === 'Lyon'"),
  },
  {
    id: 'shoelace-select',
    page: '/pages/actions/shoelace-select.html',
    class: 'library-select',
    goal: 'Choose the fruit Banana (Shoelace)',
    steps: [
      { action: 'click', target: { name: 'Fruit', roles: ['combobox'] } },
      { action: 'click', target: { name: 'Banana', roles: ['option'] } },
    ],
    success: state("value === 'banana'"),
  },
  {
    id: 'headless-ui-menu',
    page: '/pages/widgets/headless-ui.html',
    class: 'library-menu',
    goal: 'Duplicate from the Options menu (Headless UI)',
    steps: [
      { action: 'click', target: { name: 'Options', roles: BUTTON } },
      { action: 'click', target: { name: 'Duplicate', roles: ['menuitem'] } },
    ],
    success: state("menuAction === 'Duplicate'"),
  },
  {
    id: 'headless-ui-listbox',
    page: '/pages/widgets/headless-ui.html',
    class: 'library-select',
    goal: 'Assign Arlene McCoy (Headless UI Listbox)',
    steps: [
      { action: 'click', target: { name: /choose an assignee/i, roles: BUTTON } },
      { action: 'click', target: { name: 'Arlene McCoy', roles: ['option'] } },
    ],
    success: state("assignee === 'Arlene McCoy'"),
  },
  {
    id: 'downshift',
    page: '/pages/widgets/downshift.html',
    class: 'library-select',
    goal: 'Choose the country France (downshift)',
    steps: [
      { action: 'type', target: { name: 'Country', roles: ['combobox'] }, text: 'Fr' },
      { action: 'click', target: { name: 'France', roles: ['option'] } },
    ],
    success: state("country === 'France'"),
  },
  {
    id: 'material-web-select',
    page: '/pages/widgets/material-web.html',
    class: 'library-select',
    goal: 'Choose the favourite colour Blue (Material Web)',
    steps: [
      { action: 'click', target: { name: 'Favourite colour', roles: ['combobox'] } },
      { action: 'click', target: { name: 'Blue', roles: ['option'] } },
    ],
    success: state("color === 'blue'"),
  },
  {
    id: 'flatpickr',
    page: '/pages/widgets/flatpickr.html',
    class: 'library-date',
    goal: 'Pick March 14, 2026 as the departure date (flatpickr)',
    steps: [
      { action: 'click', target: { name: 'Departure date', roles: TEXT_FIELD } },
      { action: 'click', target: { name: /^(March 14, 2026|14)$/ } },
    ],
    success: state("date === '2026-03-14'"),
  },
];

/** Every task, in the order the benchmark runs them unless --seed shuffles it. */
export const TASKS = [...HAND_MADE, ...COMPONENT_LIBRARIES];
