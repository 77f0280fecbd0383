// The telegram screen, changed on another branch meanwhile, still imports the field from here.
export { SEARCH_DELAY_MS, SearchField } from '../../components/list-screen/search-field';
